// A text seen as lines, by byte offsets, for the line-oriented parts of an
// edit (whitespace-tolerant matching, re-indenting, candidate lines).
//
// A line is its content plus its terminator ("\n" or "\r\n"); the last line
// may have no terminator. Offsets keep every byte of the original, so an
// edit can splice the original text exactly, binary bytes included.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace ikigai::file_edit {

struct Line {
  std::size_t begin;        // first byte of the line
  std::size_t content_end;  // where the terminator starts ("\r\n" counts whole)
  std::size_t end;          // after the terminator
};

// Lines of `text`. A final terminator does not start another (empty) line,
// so "a\nb\n" has two lines and "" has none.
std::vector<Line> SplitLines(std::string_view text);

inline std::string_view Content(std::string_view text, const Line& line) {
  return text.substr(line.begin, line.content_end - line.begin);
}

inline bool IsIndentSpace(char c) { return c == ' ' || c == '\t'; }

// `s` without leading and trailing spaces, tabs and carriage returns.
std::string_view TrimWhitespace(std::string_view s);

// The leading run of spaces and tabs of `s`.
std::string_view LeadingIndent(std::string_view s);

// 1-based number of the line holding byte `offset` of `text`, counting from
// line `from_line` at byte `from_offset` (for walking sorted offsets in one pass).
std::size_t LineNumberAt(std::string_view text, std::size_t offset, std::size_t from_offset = 0,
                         std::size_t from_line = 1);

}  // namespace ikigai::file_edit
