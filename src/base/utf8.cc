#include "base/utf8.h"

#include <algorithm>

namespace ikigai::utf8 {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// How a sequence starting at s[0] goes: how many bytes a valid one needs,
// and how many of them are there and well-formed (the "maximal subpart").
struct Prefix {
  std::size_t need;
  std::size_t matched;
};

Prefix Examine(std::string_view s) {
  const auto c0 = static_cast<unsigned char>(s[0]);
  if (c0 < 0x80) return {1, 1};
  std::size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    need = 2;
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    need = 3;
    if (c0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (c0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    need = 4;
    if (c0 == 0xF0) lo = 0x90;  // no overlong forms
    if (c0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {1, 0};  // never a lead byte
  }
  std::size_t matched = 1;
  if (s.size() > 1) {
    const auto c1 = static_cast<unsigned char>(s[1]);
    if (c1 >= lo && c1 <= hi) {
      matched = 2;
      while (matched < need && matched < s.size() &&
             IsContinuation(static_cast<unsigned char>(s[matched]))) {
        ++matched;
      }
    }
  }
  return {need, matched};
}

}  // namespace

std::size_t ValidSequenceLength(std::string_view s) {
  if (s.empty()) return 0;
  const Prefix p = Examine(s);
  return p.matched == p.need ? p.need : 0;
}

bool IsValid(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = ValidSequenceLength(s.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string Repair(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    // Copy the longest run of ASCII at once: the common case.
    std::size_t run = i;
    while (run < s.size() && static_cast<unsigned char>(s[run]) < 0x80) ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    const std::size_t n = ValidSequenceLength(s.substr(i));
    if (n > 0) {
      out.append(s.data() + i, n);
      i += n;
      continue;
    }
    // Invalid: one U+FFFD for the maximal subpart (at least one byte).
    const std::size_t skip = std::max<std::size_t>(1, Examine(s.substr(i)).matched);
    out.append(kReplacement);
    i += skip;
  }
  return out;
}

std::size_t SafePrefixLength(std::string_view s, std::size_t max) {
  if (max >= s.size()) return s.size();
  std::size_t n = max;
  while (n > 0 && IsContinuation(static_cast<unsigned char>(s[n]))) --n;
  return n;
}

std::size_t SafeSuffixStart(std::string_view s, std::size_t min) {
  std::size_t n = min;
  while (n < s.size() && IsContinuation(static_cast<unsigned char>(s[n]))) ++n;
  return n;
}

std::size_t RawLength(std::string_view raw, std::size_t repaired_length) {
  std::size_t i = 0, out = 0;
  while (i < raw.size()) {
    std::size_t end = i + 1;
    while (end < raw.size() && IsContinuation(raw[end])) ++end;
    const std::size_t piece = end - i == 1 && static_cast<unsigned char>(raw[i]) < 0x80
                                  ? 1
                                  : Repair(raw.substr(i, end - i)).size();
    if (out + piece > repaired_length) break;
    out += piece;
    i = end;
  }
  return i;
}

}  // namespace ikigai::utf8
