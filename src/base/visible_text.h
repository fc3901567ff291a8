// Outside text (the model's answer, tool and file names, commands, tool
// output, provider errors) shown on a terminal without letting it drive
// the terminal.
//
// A terminal obeys control sequences in what it prints: ESC ] 52 writes the
// clipboard, ESC ] 0 sets the window title, ESC [ 2 J clears the screen,
// and "ESC [ 2 K ESC [ 1 G" rewrites the current line, which is enough to
// disguise a tool line or the command an approval question shows. So every
// C0 control (but newline and tab where the text has a layout), DEL and
// every C1 control (U+0080 to U+009F; 0x9B alone is CSI on some terminals)
// is shown as an escape: \x1b, \x7f, \u009b; a lone carriage return as
// \r (CR LF stays a line end). Invalid UTF-8 becomes U+FFFD first, so no
// raw byte passes. Text that goes to a pipe (-p's stdout) is left exact by
// its callers; this is for terminals and for lines meant for people.
#pragma once

#include <string>
#include <string_view>

namespace ikigai {

enum class Layout {
  kKeep,    // newlines and tabs are kept (an answer, a diff)
  kOneLine  // they are escaped too (a tool line, a name)
};

std::string VisibleText(std::string_view text, Layout layout);

// A summary line: newlines and tabs turned into spaces, controls visible,
// at most `max_bytes` (cut with "..." at a character boundary).
std::string VisibleLine(std::string_view text, std::size_t max_bytes);

// The same for text that arrives in pieces: a UTF-8 character or a CR LF
// split between two pieces is held back until the next one (or Finish).
class VisibleStream {
 public:
  std::string Feed(std::string_view piece);
  std::string Finish();  // what is held back, made visible

 private:
  std::string held_;
};

}  // namespace ikigai
