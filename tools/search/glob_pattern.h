// Glob patterns over '/'-separated relative paths: `*`, `?`, `[...]`,
// `[!...]` (also `[^...]`), `\x` escapes, and `**` for any depth.
//
// A pattern is split into segments at '/'. A `**` segment matches zero or
// more path segments when it leads or sits in the middle (`**/x`,
// `a/**/x`), and one or more when it ends the pattern (`a/**` is what is
// inside a, as in .gitignore). Within a segment, `*` and `?` never match
// '/'. With `dot_is_special` (glob's rule, as POSIX glob and fd), wildcards
// and `**` do not match a name's leading '.': `*.c` skips `.x.c`, and
// `**/*.c` does not look inside `.git`-like hidden directories; a pattern
// names hidden entries by spelling the dot (`.github/**/*.yml`).
// Matching is backtracking-free per segment (the classic star-pointer
// algorithm), so it is linear-ish in the name length, and across segments
// a set of states is kept per part, so a path costs parts x segments
// however many `**` the pattern has.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace ikigai::search {

class GlobPattern {
 public:
  // One element of a compiled segment: a run of literal bytes, `?`, `*`, or
  // a bracket expression.
  struct Token {
    enum class Kind { kLiteral, kAnyChar, kStar, kClass } kind;
    std::string literal;                                // kLiteral
    std::vector<std::pair<char32_t, char32_t>> ranges;  // kClass: inclusive ranges
    bool negated = false;                               // kClass
  };

  struct Options {
    bool dot_is_special = true;  // false for .gitignore patterns
  };

  // Errors name the problem ("unclosed '[' at position 3").
  static Result<GlobPattern, std::string> Compile(std::string_view pattern, Options options);
  static Result<GlobPattern, std::string> Compile(std::string_view pattern) {
    return Compile(pattern, Options{});
  }

  // `path` is relative, '/'-separated, without a leading "./".
  bool Matches(std::string_view path) const;

  // Whether some path strictly below the directory `dir` (relative, "" for
  // the root) could match: the walker prunes directories where it cannot.
  bool CouldMatchBelow(std::string_view dir) const;

  // Whether matching is decided by the base name alone (one segment, no '/').
  bool IsBaseNameOnly() const { return segments_.size() == 1 && !segments_[0].globstar; }

 private:
  struct Segment {
    bool globstar = false;
    std::vector<Token> tokens;
  };
  GlobPattern() = default;
  // The NFA over path parts (glob_pattern.cc): Add puts state `s` in
  // `states` with the states it reaches without a part; Step fills `next`
  // from `states` and one part, and says whether any state is left; Run
  // gives the states after a whole path.
  void Add(std::span<char> states, std::size_t s) const;
  bool Step(std::span<const char> states, std::span<char> next, std::string_view part) const;
  std::span<const char> Run(std::string_view path, std::span<char> small,
                            std::vector<char>& large) const;
  bool SegmentMatches(const Segment& segment, std::string_view name) const;
  bool Hidden(std::string_view name) const {
    return options_.dot_is_special && !name.empty() && name[0] == '.';
  }

  std::vector<Segment> segments_;
  Options options_;
};

}  // namespace ikigai::search
