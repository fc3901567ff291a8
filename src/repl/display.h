// What the REPL prints: the streamed answer, one line per tool call and one
// per outcome, notices, errors, discovery's Debug lines, and a spinner with
// the elapsed time while the model or a tool is being waited on.
//
// Colour only on a terminal, and never when NO_COLOR is set (non-empty) or
// TERM is dumb; the spinner only on a terminal. Plain output is the same
// text without escape sequences. The spinner runs on its own thread; every
// method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>

#include "base/todos.h"
#include "base/visible_text.h"
#include "protocol/wrapper.h"
#include "providers/conversation.h"

namespace ikigai::repl {

struct Style {
  bool color = false;    // SGR colours
  bool animate = false;  // a spinner, redrawn in place
  bool unicode = false;  // the spinner's braille frames (else |/-\)

  // For output on `fd`, from isatty, NO_COLOR, TERM and the locale.
  static Style Detect(int fd);
};

// "[tool] bash: ls -la"
std::string ToolStartLine(const providers::ToolCall& call, const Style& style);
// "[tool] bash -> ok (12 ms)": green when ok, yellow for an exit code, a
// timeout or a truncated answer, red for an error code.
std::string ToolEndLine(const providers::ToolCall& call, const protocol::WrappedJson& wrapped,
                        std::chrono::microseconds elapsed, const Style& style);
// "1.2s", "45s", "2m05s"
std::string FormatElapsed(std::chrono::milliseconds elapsed);

class Display {
 public:
  Display(std::ostream& out, Style style);
  ~Display();
  Display(const Display&) = delete;
  Display& operator=(const Display&) = delete;

  // Outside text below has its controls made visible (base/visible_text.h).
  void Text(std::string_view text);  // the model's answer, as it arrives
  void ToolStart(const providers::ToolCall& call);
  void ToolEnd(const providers::ToolCall& call, const protocol::WrappedJson& wrapped,
               std::chrono::microseconds elapsed);
  void Output(std::string_view text);   // a command's output
  void Notice(std::string_view line);   // dim
  void Warning(std::string_view line);  // yellow
  void Error(std::string_view line);    // red
  void Debug(std::string_view line);    // "Debug: ..." lines, dim
  void Diff(std::string_view diff);     // a unified diff, + green and - red on a terminal
  // The agent's plan (todo_write) as a checklist: done dim, under way bold.
  void Checklist(const std::vector<todos::Todo>& todos);
  void EndLine();  // a newline unless at the start of a line

  // Shows "<frame> label 1.2s" after a short delay, until the next output
  // or StopSpinner; a later Spin replaces the label and restarts the clock.
  void Spin(std::string label);
  void StopSpinner();

  const Style& style() const { return style_; }

 private:
  void WriteLocked(std::string_view text);
  void ClearSpinnerLocked();
  void SpinnerLoop();
  std::string Paint(std::string_view text, const char* sgr) const;

  std::ostream& out_;
  const Style style_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool at_line_start_ = true;
  VisibleStream answer_;  // the model's text, its controls made visible
  bool spinning_ = false;
  bool spinner_shown_ = false;
  bool stopping_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point since_;
  std::thread thread_;
};

}  // namespace ikigai::repl
