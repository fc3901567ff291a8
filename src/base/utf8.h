// UTF-8 validation and repair.
//
// Everything ikigai and its tools print as JSON must be valid UTF-8, whatever
// bytes a file or a command produced. Repair replaces each maximal invalid
// subsequence (as in the Unicode standard's "substitution of maximal
// subparts") with U+FFFD, so the text stays readable and its length bounded
// (one invalid byte becomes at most three).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ikigai::utf8 {

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid sequence starting at s[0], or 0 if s does not start with one.
std::size_t ValidSequenceLength(std::string_view s);

bool IsValid(std::string_view s);

// Returns `s` with every invalid subsequence replaced by U+FFFD.
std::string Repair(std::string_view s);

// Largest n <= max such that s.substr(0, n) does not end inside a multi-byte
// sequence. `s` is assumed valid (repair first).
std::size_t SafePrefixLength(std::string_view s, std::size_t max);

// Smallest n >= min such that s.substr(n) does not start with a continuation byte.
std::size_t SafeSuffixStart(std::string_view s, std::size_t min);

}  // namespace ikigai::utf8
