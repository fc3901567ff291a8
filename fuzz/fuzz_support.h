// Helpers shared by the fuzz targets (fuzz/*_fuzz.cc).
//
// A target checks cheap invariants with FUZZ_CHECK: a broken one aborts,
// which libFuzzer reports as a crash and saves the input that caused it.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)

namespace ikigai::fuzz {

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// `text` up to the first `separator` (all of it if there is none), and the
// rest after it.
struct Parts {
  std::string_view head;
  std::string_view tail;
};
inline Parts SplitOnce(std::string_view text, char separator) {
  const std::size_t at = text.find(separator);
  if (at == std::string_view::npos) return {text, {}};
  return {text.substr(0, at), text.substr(at + 1)};
}

inline std::vector<std::string_view> SplitAll(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// A directory of this process's own under $TMPDIR (made once, reused by
// every input; `make fuzz` points TMPDIR at a scratch directory it removes).
inline const std::string& ScratchDirectory() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ikigai-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return pattern;
  }();
  return dir;
}

// Replaces the file at `path` with `content`.
inline void WriteFile(const std::string& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(path.c_str());
    std::abort();
  }
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n <= 0) {
      std::perror(path.c_str());
      std::abort();
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  ::close(fd);
}

// A deterministic stream of numbers from the input's bytes, for choices
// (split points, flags) that must not take bytes away from the text.
class Choices {
 public:
  explicit Choices(std::string_view text) {
    for (unsigned char c : text) state_ = (state_ ^ c) * 0x100000001b3ULL;  // FNV-1a
  }
  std::uint64_t Next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t Below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(Next() % n); }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace ikigai::fuzz
