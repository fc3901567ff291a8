// Finding a literal string in a buffer at memory speed.
//
// The generic SIMD substring search (W. Muła): compare 16 positions at once
// against two bytes of the needle (the rarest two, by a table of byte
// frequencies in source code), and verify only where both agree. With
// ASCII case folding, letters are compared with their 0x20 bit set, so a
// case-insensitive search costs the same as a case-sensitive one. This is
// the prefilter that lets a rare literal cost little more than reading the
// bytes, the job ripgrep gives to its Teddy and memchr searchers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ikigai::search {

class LiteralFinder {
 public:
  // An empty needle matches everywhere. `ignore_case` folds ASCII letters.
  LiteralFinder(std::string needle, bool ignore_case);

  // Start of the first occurrence at or after `from`, or npos.
  std::size_t Find(std::string_view haystack, std::size_t from = 0) const;

  const std::string& needle() const { return needle_; }

 private:
  bool VerifyAt(const char* p) const;

  std::string needle_;  // lowercased when ignoring case
  bool ignore_case_;
  std::size_t probe1_ = 0, probe2_ = 0;  // offsets of the two compared bytes
};

// Number of '\n' bytes in [begin, end).
std::size_t CountNewlines(const char* begin, const char* end);

}  // namespace ikigai::search
