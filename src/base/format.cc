#include "base/format.h"

#include <cstdio>

namespace ikigai {

std::string FormatDuration(std::chrono::milliseconds duration) {
  const long long ms = duration.count();
  char text[48];
  if (ms < 1000) {
    std::snprintf(text, sizeof text, "%lld ms", ms);
  } else if (ms < 120'000) {
    if (ms % 1000 == 0) {
      std::snprintf(text, sizeof text, "%lld s", ms / 1000);
    } else {
      std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms) / 1000);
    }
  } else if (ms % 60'000 < 1000) {
    std::snprintf(text, sizeof text, "%lld min", ms / 60'000);
  } else {
    std::snprintf(text, sizeof text, "%lld min %lld s", ms / 60'000, (ms % 60'000) / 1000);
  }
  return text;
}

std::string FormatCount(long long count) {
  std::string digits = std::to_string(count < 0 ? -count : count);
  for (std::ptrdiff_t at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) {
    digits.insert(static_cast<std::size_t>(at), ",");
  }
  return (count < 0 ? "-" : "") + digits;
}

std::string FormatSize(std::size_t bytes) {
  constexpr std::size_t kKilo = 1024, kMega = 1024 * 1024;
  if (bytes >= kMega && bytes % kMega == 0) return std::to_string(bytes / kMega) + " MB";
  if (bytes >= kKilo && bytes % kKilo == 0) return std::to_string(bytes / kKilo) + " KB";
  return std::to_string(bytes) + " bytes";
}

std::string_view Trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

bool IsBlank(std::string_view text) { return Trim(text).empty(); }

std::string AsciiLower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

}  // namespace ikigai
