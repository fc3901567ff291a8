// Re-indenting new_string to the file's own style after a match that
// disregarded whitespace.
//
// A model that wrote four spaces where the file has a tab must not leave
// four spaces in the file. We detect the file's style (tabs, or spaces in
// units of N) and the model's (from old_string and new_string). A new_string
// line indented exactly like some old_string line gets the indentation of
// the file line that old_string line matched (alignment included). Any other
// line is measured in levels relative to old_string's first non-blank line,
// in the model's style, and rendered relative to the file line that one
// matched, in the file's style (below zero clamps to zero; spaces that do
// not make a level are kept). The model's spaces per level are learned first
// from how old_string's lines correspond to the matched file lines (the
// surest evidence), then from the file (a tab file: the base line's width
// over its tabs; a space file: its unit), then from the steps between the
// model's own lines. When the styles agree and the base indentation is the
// same, new_string is kept byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ikigai::file_edit {

struct IndentStyle {
  enum class Kind { kUnknown, kTabs, kSpaces };
  Kind kind = Kind::kUnknown;
  int unit = 0;  // spaces per level (kSpaces only)

  bool operator==(const IndentStyle&) const = default;
};

// The style of `texts` (each split into lines; steps between lines are only
// measured within one text). Tabs when more lines start with a tab than with
// spaces; otherwise the commonest step between consecutive indented lines
// (2..8), else the gcd of the indents; unknown without evidence.
IndentStyle DetectIndentStyle(const std::vector<std::string_view>& texts);

struct ReindentRequest {
  std::string_view old_string;
  std::string_view new_string;
  // The contents of the file lines old_string's lines matched, one per line.
  std::vector<std::string_view> matched_lines;
  IndentStyle file_style;
};

// new_string with its indentation rewritten in the file's style.
std::string Reindent(const ReindentRequest& request);

}  // namespace ikigai::file_edit
