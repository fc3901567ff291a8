#include "file_edit/lines.h"

#include <algorithm>

namespace ikigai::file_edit {

std::vector<Line> SplitLines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t newline = text.find('\n', begin);
    if (newline == std::string_view::npos) {
      lines.push_back({begin, text.size(), text.size()});
      break;
    }
    const bool crlf = newline > begin && text[newline - 1] == '\r';
    lines.push_back({begin, crlf ? newline - 1 : newline, newline + 1});
    begin = newline + 1;
  }
  return lines;
}

std::string_view TrimWhitespace(std::string_view s) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view LeadingIndent(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && IsIndentSpace(s[n])) ++n;
  return s.substr(0, n);
}

std::size_t LineNumberAt(std::string_view text, std::size_t offset, std::size_t from_offset,
                         std::size_t from_line) {
  const auto first = text.begin() + static_cast<std::ptrdiff_t>(from_offset);
  const auto last = text.begin() + static_cast<std::ptrdiff_t>(offset);
  return from_line + static_cast<std::size_t>(std::count(first, last, '\n'));
}

}  // namespace ikigai::file_edit
