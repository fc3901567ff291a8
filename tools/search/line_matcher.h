// Finding the lines of a buffer that match a grep pattern.
//
// The dialect is POSIX ERE plus what models write (\d \w \s \b, (?i),
// non-greedy repeats): RE2's syntax, which matches in linear time. RE2 runs
// with never_nl, so no match can span a newline and a whole buffer can be
// searched at once instead of line by line.
//
// Speed comes from literals (ripgrep's approach): a pattern without
// metacharacters is searched with LiteralFinder alone; otherwise RE2's
// prefilter yields the literals ("atoms") a match needs. If one atom is
// required by every match, the search jumps from one occurrence of it to
// the next and runs RE2 only on the line around it; if atoms exist but none
// is required alone, a buffer without any of them is skipped whole.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "search/literal_finder.h"

namespace re2 {
class RE2;
}

namespace ikigai::search {

struct LineSpan {
  std::size_t begin;  // first byte of the line
  std::size_t end;    // one past its last byte, before the '\n'
};

class LineMatcher {
 public:
  struct Options {
    bool ignore_case = false;
  };
  // Errors are the engine's message ("missing ): foo(").
  static Result<LineMatcher, std::string> Compile(std::string_view pattern, Options options);
  LineMatcher(LineMatcher&&) noexcept;
  LineMatcher& operator=(LineMatcher&&) noexcept;
  ~LineMatcher();

  // The first line starting at or after `from` (a line start) with a match.
  std::optional<LineSpan> NextMatch(std::string_view text, std::size_t from) const;

  // False when `text` cannot contain a match (checked once per file).
  bool MayMatch(std::string_view text) const;

  // Whether the line [begin, end) of text matches; for verifying context.
  bool LineMatches(std::string_view line) const;

 private:
  LineMatcher() = default;

  std::unique_ptr<re2::RE2> regex_;        // null for a plain literal
  std::optional<LiteralFinder> required_;  // in every match
  std::vector<LiteralFinder> any_of_;      // a match holds at least one
};

}  // namespace ikigai::search
