#include "base/io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ikigai {

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool ReadAll(int fd, std::string& out, std::size_t max_bytes) {
  char buffer[65536];
  std::size_t got = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    const std::size_t size = static_cast<std::size_t>(n);
    if (size > max_bytes - got) {
      out.append(buffer, max_bytes - got);
      errno = EFBIG;
      return false;
    }
    out.append(buffer, size);
    got += size;
  }
}

Result<std::monostate, std::string> MakeDirectories(const std::string& dir, mode_t mode) {
  for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string part = dir.substr(0, slash);
    if (!part.empty() && ::mkdir(part.c_str(), mode) != 0 && errno != EEXIST) {
      return Err("cannot create " + part + ": " + std::strerror(errno));
    }
    if (slash == std::string::npos) break;
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Err("cannot create " + dir + ": " +
               (errno != 0 ? std::strerror(errno) : "not a directory"));
  }
  return std::monostate{};
}

}  // namespace ikigai
