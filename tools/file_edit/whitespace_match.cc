#include "file_edit/whitespace_match.h"

namespace ikigai::file_edit {
namespace {

std::vector<std::string_view> TrimmedLines(std::string_view text, const std::vector<Line>& lines) {
  std::vector<std::string_view> trimmed;
  trimmed.reserve(lines.size());
  for (const Line& line : lines) trimmed.push_back(TrimWhitespace(Content(text, line)));
  return trimmed;
}

// KMP failure function: fail[i] is the length of the longest proper prefix
// of pattern[0..i] that is also a suffix of it.
std::vector<std::size_t> FailureFunction(const std::vector<std::string_view>& pattern) {
  std::vector<std::size_t> fail(pattern.size(), 0);
  std::size_t k = 0;
  for (std::size_t i = 1; i < pattern.size(); ++i) {
    while (k > 0 && pattern[i] != pattern[k]) k = fail[k - 1];
    if (pattern[i] == pattern[k]) ++k;
    fail[i] = k;
  }
  return fail;
}

}  // namespace

bool IsBlank(std::string_view old_string) {
  for (char c : old_string) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

std::vector<std::size_t> FindWhitespaceNormalized(std::string_view text,
                                                  const std::vector<Line>& lines,
                                                  std::string_view old_string) {
  std::vector<std::size_t> starts;
  if (IsBlank(old_string)) return starts;
  const std::vector<std::string_view> pattern = TrimmedLines(old_string, SplitLines(old_string));
  const std::vector<std::string_view> haystack = TrimmedLines(text, lines);
  const std::vector<std::size_t> fail = FailureFunction(pattern);
  std::size_t k = 0;  // pattern lines matched so far
  for (std::size_t i = 0; i < haystack.size(); ++i) {
    while (k > 0 && haystack[i] != pattern[k]) k = fail[k - 1];
    if (haystack[i] == pattern[k]) ++k;
    if (k == pattern.size()) {
      starts.push_back(i + 1 - k);
      k = fail[k - 1];
    }
  }
  return starts;
}

Region WindowRegion(const std::vector<Line>& lines, std::size_t first, std::size_t count,
                    bool old_ends_with_newline) {
  const Line& last = lines[first + count - 1];
  const std::size_t end = old_ends_with_newline ? last.end : last.content_end;
  return {lines[first].begin, end, end > last.content_end};
}

}  // namespace ikigai::file_edit
