#include "toolkit/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "toolkit/error_codes.h"
#include "toolkit/file_errors.h"
#include "toolkit/sandbox_errors.h"

namespace ikigai::toolkit {
namespace {

// Unlinks the temporary file unless released (after a successful rename).
class TempFile {
 public:
  TempFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  int Close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void Release() { path_.clear(); }

 private:
  std::string path_;
  int fd_;
};

int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

mode_t CurrentUmask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

}  // namespace

std::string BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string DirName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

Result<std::string, int> ResolveFinalSymlinks(std::string_view path) {
  std::string current(path);
  for (int hops = 0; hops < 40; ++hops) {
    char target[4096];
    const ssize_t n = ::readlink(current.c_str(), target, sizeof target);
    if (n < 0) {
      if (errno == EINVAL || errno == ENOENT) return current;  // not a link, or absent
      return Err(errno);
    }
    std::string next(target, static_cast<std::size_t>(n));
    if (next.empty() || next[0] != '/') next = DirName(current) + "/" + next;
    current = std::move(next);
  }
  return Err(ELOOP);
}

namespace {

// A write refused by ikigai's sandbox is said so (SANDBOX_DENIED).
ToolError WriteError(int err, std::string_view path, FileOp op) {
  if (auto denied = SandboxDenied(err, path)) return *denied;
  return FileError(err, path, op);
}

}  // namespace

Result<WriteOutcome, ToolError> WriteFileAtomically(std::string_view path,
                                                    std::string_view content) {
  const std::string given(path);
  auto resolved = ResolveFinalSymlinks(path);
  if (!resolved) return Err(WriteError(resolved.error(), given, FileOp::kOpen));
  const std::string& target = *resolved;
  const std::string dir = DirName(target);

  struct stat old {};
  const bool exists = ::stat(target.c_str(), &old) == 0;
  if (!exists && errno != ENOENT) return Err(WriteError(errno, given, FileOp::kOpen));
  if (exists && S_ISDIR(old.st_mode)) {
    return Err(ToolError{code::kOpenFailed, "Cannot open file: " + given +
                                                " (it is a directory). Give the path of a file "
                                                "inside it."});
  }
  if (exists && !S_ISREG(old.st_mode)) {
    return Err(ToolError{code::kOpenFailed, "Cannot open file: " + given +
                                                " (not a regular file; it cannot be replaced)."});
  }
  if (!exists) {
    struct stat d {};
    if (::stat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode)) {
      if (errno == EACCES) return Err(WriteError(EACCES, given, FileOp::kOpen));
      return Err(ToolError{code::kOpenFailed, "Cannot open file: " + given + ". The directory " +
                                                  dir +
                                                  " does not exist; create it first (bash: mkdir "
                                                  "-p '" +
                                                  dir + "') and write again."});
    }
  }
  // Renaming over a file needs only the directory's permission; keep the
  // file's own write permission meaningful, as an editor would.
  if (exists && ::faccessat(AT_FDCWD, target.c_str(), W_OK, AT_EACCESS) != 0) {
    return Err(WriteError(errno, given, FileOp::kOpen));
  }

  std::string tmp_path = dir + "/." + BaseName(target) + ".ikigai-XXXXXX";
  const int fd = ::mkostemp(tmp_path.data(), O_CLOEXEC);
  if (fd < 0) return Err(WriteError(errno, given, FileOp::kOpen));
  TempFile tmp(tmp_path, fd);

  if (exists) {
    if (::geteuid() == 0 || old.st_uid == ::geteuid()) {
      if (::fchown(tmp.fd(), old.st_uid, old.st_gid) != 0) {
        // Best effort: keeping owner and group is not worth failing the write.
      }
    }
    if (::fchmod(tmp.fd(), old.st_mode & 07777) != 0) {
      return Err(WriteError(errno, given, FileOp::kWrite));
    }
  } else if (::fchmod(tmp.fd(), 0666 & ~CurrentUmask()) != 0) {
    return Err(WriteError(errno, given, FileOp::kWrite));
  }

  if (int err = WriteAll(tmp.fd(), content); err != 0) {
    return Err(WriteError(err, given, FileOp::kWrite));
  }
  if (::fsync(tmp.fd()) != 0 || tmp.Close() != 0) {
    return Err(WriteError(errno, given, FileOp::kWrite));
  }
  if (::rename(tmp.path().c_str(), target.c_str()) != 0) {
    return Err(WriteError(errno, given, FileOp::kWrite));
  }
  tmp.Release();
  // Make the rename itself durable; a failure here cannot be undone and the
  // new content is in place, so it is not reported.
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return WriteOutcome{!exists};
}

}  // namespace ikigai::toolkit
