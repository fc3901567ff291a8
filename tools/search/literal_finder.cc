#include "search/literal_finder.h"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ikigai::search {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Rough frequency rank of bytes in source code and text: higher is more
// common. Only the order matters: the rarest needle bytes make the fewest
// false candidates.
int Frequency(unsigned char c) {
  if (c == ' ' || c == 'e' || c == 't') return 255;
  if (std::strchr("aoinsrhl", c) != nullptr && c != 0) return 230;
  if (std::strchr("dcumfpgwybv_.,;()\n\t", c) != nullptr && c != 0) return 200;
  if (c >= 'a' && c <= 'z') return 150;
  if (c >= 'A' && c <= 'Z') return 120;
  if (c >= '0' && c <= '9') return 120;
  if (c < 0x80) return 100;
  return 60;
}

}  // namespace

LiteralFinder::LiteralFinder(std::string needle, bool ignore_case)
    : needle_(std::move(needle)), ignore_case_(ignore_case) {
  // Case folding is only needed if the needle has letters.
  ignore_case_ = ignore_case_ && std::any_of(needle_.begin(), needle_.end(), IsAsciiLetter);
  if (ignore_case_) std::transform(needle_.begin(), needle_.end(), needle_.begin(), Lower);
  if (needle_.size() < 2) return;
  // The rarest byte, then the rarest other one, preferring the farthest from
  // the first among equals: two far-apart bytes agree by chance less often
  // than neighbours ("BO" in BOOST_ASSERT is everywhere in Boost, "B" and
  // the final "T" eleven bytes apart much less).
  auto rank = [&](std::size_t i) { return Frequency(static_cast<unsigned char>(needle_[i])); };
  std::size_t first = 0;
  for (std::size_t i = 1; i < needle_.size(); ++i) {
    if (rank(i) < rank(first)) first = i;
  }
  auto distance = [first](std::size_t i) { return i > first ? i - first : first - i; };
  std::size_t second = first == 0 ? 1 : 0;
  for (std::size_t i = 0; i < needle_.size(); ++i) {
    if (i == first) continue;
    if (rank(i) < rank(second) || (rank(i) == rank(second) && distance(i) > distance(second))) {
      second = i;
    }
  }
  const std::array<std::size_t, 2> best{first, second};
  probe1_ = std::min(best[0], best[1]);
  probe2_ = std::max(best[0], best[1]);
}

bool LiteralFinder::VerifyAt(const char* p) const {
  if (!ignore_case_) return std::memcmp(p, needle_.data(), needle_.size()) == 0;
  for (std::size_t i = 0; i < needle_.size(); ++i) {
    if (Lower(p[i]) != needle_[i]) return false;
  }
  return true;
}

std::size_t LiteralFinder::Find(std::string_view haystack, std::size_t from) const {
  const std::size_t n = needle_.size();
  if (n == 0) return from <= haystack.size() ? from : std::string_view::npos;
  if (from >= haystack.size() || haystack.size() - from < n) return std::string_view::npos;
  const char* const base = haystack.data();
  const std::size_t last = haystack.size() - n;  // last possible start
  std::size_t s = from;
  if (n == 1 && !ignore_case_) {
    const void* hit = std::memchr(base + s, needle_[0], haystack.size() - s);
    return hit == nullptr ? std::string_view::npos
                          : static_cast<std::size_t>(static_cast<const char*>(hit) - base);
  }
#if defined(__SSE2__)
  if (n >= 2) {
    const char c1 = needle_[probe1_], c2 = needle_[probe2_];
    const bool fold1 = ignore_case_ && IsAsciiLetter(c1);
    const bool fold2 = ignore_case_ && IsAsciiLetter(c2);
    const __m128i want1 = _mm_set1_epi8(c1), want2 = _mm_set1_epi8(c2);
    const __m128i or1 = _mm_set1_epi8(fold1 ? 0x20 : 0), or2 = _mm_set1_epi8(fold2 ? 0x20 : 0);
    while (s + 16 <= last + 1) {  // starts s..s+15 are all possible
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + s + probe1_));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + s + probe2_));
      const __m128i eq = _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(a, or1), want1),
                                       _mm_cmpeq_epi8(_mm_or_si128(b, or2), want2));
      unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(eq));
      while (mask != 0) {
        const unsigned bit = static_cast<unsigned>(__builtin_ctz(mask));
        if (VerifyAt(base + s + bit)) return s + bit;
        mask &= mask - 1;
      }
      s += 16;
    }
  }
#endif
  for (; s <= last; ++s) {
    if (VerifyAt(base + s)) return s;
  }
  return std::string_view::npos;
}

std::size_t CountNewlines(const char* begin, const char* end) {
  std::size_t count = 0;
  const char* p = begin;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  for (; p + 16 <= end; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    count += static_cast<std::size_t>(
        __builtin_popcount(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)))));
  }
#endif
  for (; p < end; ++p) count += *p == '\n';
  return count;
}

}  // namespace ikigai::search
