#include "base/visible_text.h"

#include <cstdio>

#include "base/utf8.h"

namespace ikigai {
namespace {

void AppendEscaped(std::string& out, unsigned code, bool unicode) {
  char text[16];
  std::snprintf(text, sizeof text, unicode ? "\\u%04x" : "\\x%02x", code);
  out += text;
}

// How many bytes at the end of `text` may begin a UTF-8 character (or a
// CR LF) that the next piece completes.
std::size_t IncompleteTail(std::string_view text) {
  if (text.empty()) return 0;
  if (text.back() == '\r') return 1;
  for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto byte = static_cast<unsigned char>(text[text.size() - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

}  // namespace

std::string VisibleText(std::string_view raw, Layout layout) {
  const std::string text = utf8::Repair(raw);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0xC2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9F) {  // a C1 control, U+0080 to U+009F
        AppendEscaped(out, next, true);
        ++i;
        continue;
      }
    }
    if (c >= 0x20 && c != 0x7F) {
      out += static_cast<char>(c);
      continue;
    }
    const bool keep = layout == Layout::kKeep;
    if (c == '\n' && keep) {
      out += '\n';
    } else if (c == '\t' && keep) {
      out += '\t';
    } else if (c == '\r' && keep && i + 1 < text.size() && text[i + 1] == '\n') {
      // CR LF is a line end.
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      AppendEscaped(out, c, false);
    }
  }
  return out;
}

std::string VisibleLine(std::string_view text, std::size_t max_bytes) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  line = VisibleText(line, Layout::kOneLine);
  if (line.size() > max_bytes) {
    line = line.substr(0, utf8::SafePrefixLength(line, max_bytes > 3 ? max_bytes - 3 : 0)) + "...";
  }
  return line;
}

std::string VisibleStream::Feed(std::string_view piece) {
  held_.append(piece);
  const std::size_t tail = IncompleteTail(held_);
  std::string shown =
      VisibleText(std::string_view(held_).substr(0, held_.size() - tail), Layout::kKeep);
  held_.erase(0, held_.size() - tail);
  return shown;
}

std::string VisibleStream::Finish() {
  std::string shown = VisibleText(held_, Layout::kKeep);
  held_.clear();
  return shown;
}

}  // namespace ikigai
