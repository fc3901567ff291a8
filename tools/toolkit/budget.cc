#include "toolkit/budget.h"

#include <algorithm>

#include "base/utf8.h"

namespace ikigai::toolkit {
namespace {

// Matches nlohmann::json's dump(): the two-character escapes for \b \t \n
// \f \r " and \\, \u00XX for the other control characters, UTF-8 as is.
std::size_t EscapedSize(unsigned char c) {
  switch (c) {
    case '"':
    case '\\':
    case '\b':
    case '\f':
    case '\n':
    case '\r':
    case '\t':
      return 2;
    default:
      return c < 0x20 ? 6 : 1;
  }
}

}  // namespace

std::size_t JsonEscapedSize(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += EscapedSize(c);
  return n;
}

std::size_t HeadFitting(std::string_view s, std::size_t budget) {
  std::size_t used = 0, i = 0, last_line_end = 0;
  for (; i < s.size(); ++i) {
    const std::size_t c = EscapedSize(static_cast<unsigned char>(s[i]));
    if (used + c > budget) break;
    used += c;
    if (s[i] == '\n') last_line_end = i + 1;
  }
  if (i == s.size()) return s.size();
  if (last_line_end > 0) return last_line_end;
  return utf8::SafePrefixLength(s, i);
}

std::size_t TailFitting(std::string_view s, std::size_t budget) {
  std::size_t used = 0, i = s.size(), first_line_start = s.size();
  for (; i > 0; --i) {
    const std::size_t c = EscapedSize(static_cast<unsigned char>(s[i - 1]));
    if (used + c > budget) break;
    used += c;
    // A newline at i-1 means a whole line begins at i (unless i is the end).
    if (s[i - 1] == '\n' && i < s.size()) first_line_start = i;
  }
  if (i == 0) return 0;
  if (s[i - 1] == '\n') return i;  // what fits begins exactly at a line start
  if (first_line_start < s.size()) return first_line_start;
  return utf8::SafeSuffixStart(s, i);
}

std::string_view KeepHead(std::string_view s, std::size_t budget) {
  return s.substr(0, HeadFitting(s, budget));
}

HeadAndTail KeepHeadAndTail(std::string_view s, std::size_t budget) {
  if (JsonEscapedSize(s) <= budget) return {s, {}, 0, 0};
  const std::size_t head_len = HeadFitting(s, budget / 3);
  const std::string_view rest = s.substr(head_len);
  const std::size_t tail_start = TailFitting(rest, budget - budget / 3);
  const std::string_view omitted = rest.substr(0, tail_start);
  return {s.substr(0, head_len), rest.substr(tail_start), omitted.size(),
          static_cast<std::size_t>(std::count(omitted.begin(), omitted.end(), '\n'))};
}

}  // namespace ikigai::toolkit
