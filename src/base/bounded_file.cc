#include "base/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "base/unique_fd.h"

namespace ikigai {
namespace {

std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

bool Inside(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir || (path.starts_with(dir) && path[dir.size()] == '/');
}

}  // namespace

Result<BoundedFile, std::string> ReadBoundedFile(const std::string& path,
                                                 const BoundedFileOptions& options) {
  BoundedFile file;
  struct stat link_info {};
  if (::lstat(path.c_str(), &link_info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return file;
    return Err(path + ": cannot read: " + std::strerror(errno));
  }
  std::string target = path;
  if (!options.confine_to.empty()) {
    target = RealPath(path);
    const std::string root = RealPath(options.confine_to);
    if (target.empty()) {
      return Err(path + ": a symbolic link that leads nowhere (" + std::strerror(errno) + ")");
    }
    if (root.empty() || !Inside(target, root)) {
      return Err(path + ": leads outside the project (to " + target +
                 "); copy the file into the project instead of linking it");
    }
  }
  // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
  UniqueFd fd(::open(target.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return Err(path + ": a symbolic link that leads nowhere");
    return Err(path + ": cannot read: " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return Err(path + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) {
    return Err(path + ": " + KindOf(info.st_mode) + ", not a regular file");
  }
  file.exists = true;
  file.size = static_cast<std::size_t>(info.st_size);
  // Read one byte past the cap to learn whether there is more, whatever
  // st_size said (a file may grow while it is read). The buffer starts at
  // the file's size, not at the cap (a 1 MB cap zeroed for a 100-byte
  // config file), and grows if the file does.
  const std::size_t limit = options.max_bytes + 1;
  file.text.resize(std::min(limit, file.size + 1));
  std::size_t got = 0;
  for (;;) {
    if (got == file.text.size()) {
      if (got == limit) break;
      file.text.resize(std::min(limit, std::max<std::size_t>(2 * got, 4096)));
    }
    const ssize_t n = ::read(fd.get(), file.text.data() + got, file.text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Err(path + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  file.truncated = got > options.max_bytes;
  file.text.resize(file.truncated ? options.max_bytes : got);
  if (file.size < got) file.size = got;
  return file;
}

}  // namespace ikigai
