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

inline bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// How many bytes of `raw` Repair turns into the first `repaired_length`
// bytes of Repair(raw). Repair works piece by piece, a piece being a byte
// that is not a continuation byte plus the continuation bytes after it, so
// the pieces can be repaired one at a time. A cut inside a piece's
// replacement characters counts the piece as not reached.
std::size_t RawLength(std::string_view raw, std::size_t repaired_length);

}  // namespace ikigai::utf8
