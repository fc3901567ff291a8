// Finding old_string when it differs from the file only in whitespace.
//
// The commonest failed edit is a model copying a block with spaces where the
// file has tabs, with trailing spaces dropped, or with "\n" where the file
// has "\r\n". We compare whole lines: old_string's lines against every window
// of as many consecutive file lines, each pair equal once leading and
// trailing spaces, tabs and carriage returns are disregarded. The windows
// are found with Knuth-Morris-Pratt over the trimmed lines, so a search is
// linear in the file's size even for repetitive files and long old_strings.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "file_edit/lines.h"

namespace ikigai::file_edit {

// Whether old_string has nothing but whitespace (then it is never matched
// loosely: every blank line of the file would match it).
bool IsBlank(std::string_view old_string);

// Index (into `lines`) of the first line of every window of `text` that
// matches `old_string` line by line, whitespace at the ends of lines
// disregarded. Windows may overlap. Empty when old_string is blank.
std::vector<std::size_t> FindWhitespaceNormalized(std::string_view text,
                                                  const std::vector<Line>& lines,
                                                  std::string_view old_string);

struct Region {
  std::size_t begin;
  std::size_t end;
  bool ends_with_terminator;  // the region's last bytes are a line break
};

// The bytes a window of `count` lines from `first` replaces: from the start
// of its first line to the end of its last line's content, plus that line's
// terminator when old_string ended with a newline.
Region WindowRegion(const std::vector<Line>& lines, std::size_t first, std::size_t count,
                    bool old_ends_with_newline);

}  // namespace ikigai::file_edit
