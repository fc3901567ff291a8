#include "toolkit/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "base/io.h"
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
  // (An unnamed file has no path: closing it is all.)
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
  void SetPath(std::string path) { path_ = std::move(path); }

 private:
  std::string path_;
  int fd_;
};

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

ToolError Changed(const std::string& path) {
  return {code::kFileChanged,
          "File changed since it was read: " + path +
              " (another process, or another call, wrote it meanwhile). Nothing was written; "
              "read the file again and redo the change."};
}

// Whether the file at `target` is still the one `seen` describes, or still
// absent when it was.
bool Unchanged(const std::string& target, bool existed, const FileStamp& seen) {
  struct stat now {};
  if (::stat(target.c_str(), &now) != 0) return !existed && errno == ENOENT;
  return existed && FileStamp::Of(now) == seen;
}

// Extended attributes (ACLs are system.posix_acl_access) from `from` onto
// the open file `to`. Best effort: one that cannot be set (security.*
// without the capability) is skipped.
void CopyExtendedAttributes(const std::string& from, int to) {
  const ssize_t size = ::listxattr(from.c_str(), nullptr, 0);
  if (size <= 0) return;
  std::string names(static_cast<std::size_t>(size), '\0');
  const ssize_t got = ::listxattr(from.c_str(), names.data(), names.size());
  if (got <= 0) return;
  names.resize(static_cast<std::size_t>(got));
  for (std::size_t at = 0; at < names.size();) {
    const char* name = names.c_str() + at;
    at += std::strlen(name) + 1;
    const ssize_t length = ::getxattr(from.c_str(), name, nullptr, 0);
    if (length < 0) continue;
    std::string value(static_cast<std::size_t>(length), '\0');
    const ssize_t read = ::getxattr(from.c_str(), name, value.data(), value.size());
    if (read < 0) continue;
    (void)::fsetxattr(to, name, value.data(), static_cast<std::size_t>(read), 0);
  }
}

void SyncDirectory(const std::string& dir) {
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

// The old file rewritten where it is: its inode, links, owner, attributes
// and mount stay. Space is reserved first, so that a full disk fails before
// any byte changes.
Result<WriteOutcome, ToolError> WriteInPlace(const std::string& given, const std::string& target,
                                             std::string_view content, const FileStamp& old,
                                             const WriteOptions& options) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Err(WriteError(errno, given, FileOp::kOpen));
  TempFile file("", fd);  // closes it
  if (options.before_replace) options.before_replace();
  struct stat now {};
  if (::fstat(fd, &now) != 0) return Err(WriteError(errno, given, FileOp::kOpen));
  if (!(FileStamp::Of(now) == old)) return Err(Changed(given));
  if (content.size() > static_cast<std::size_t>(now.st_size)) {
    const int err = ::posix_fallocate(fd, 0, static_cast<off_t>(content.size()));
    if (err != 0 && err != EOPNOTSUPP && err != EINVAL) {
      return Err(WriteError(err, given, FileOp::kWrite));
    }
  }
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n =
        ::pwrite(fd, content.data() + done, content.size() - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Err(WriteError(errno, given, FileOp::kWrite));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd, static_cast<off_t>(content.size())) != 0 || ::fsync(fd) != 0) {
    return Err(WriteError(errno, given, FileOp::kWrite));
  }
  return WriteOutcome{false};
}

// A temporary file in `dir`: unnamed where the filesystem allows (nothing is
// left if the tool is killed), else named .BASE.ikigai-XXXXXX. `named` is
// empty for an unnamed one.
int MakeTemporary(const std::string& dir, const std::string& base, std::string& named) {
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return -1;
  named = dir + "/." + base + ".ikigai-XXXXXX";
  return ::mkostemp(named.data(), O_CLOEXEC);
}

// Gives an unnamed temporary file a name next to the target, for rename.
int NameTemporary(int fd, const std::string& dir, const std::string& base, std::string& named) {
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  for (int attempt = 0; attempt < 16; ++attempt) {
    named =
        dir + "/." + base + ".ikigai-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      return 0;
    }
    if (errno != EEXIST) break;
  }
  const int err = errno;
  named.clear();
  return err;
}

}  // namespace

FileStamp FileStamp::Of(const struct stat& st) {
  return {st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

bool FileStamp::operator==(const FileStamp& other) const {
  return device == other.device && inode == other.inode && size == other.size &&
         modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
}

Result<WriteOutcome, ToolError> WriteFileAtomically(std::string_view path, std::string_view content,
                                                    const WriteOptions& options) {
  const std::string given(path);
  auto resolved = ResolveFinalSymlinks(path);
  if (!resolved) return Err(WriteError(resolved.error(), given, FileOp::kOpen));
  const std::string& target = *resolved;
  const std::string dir = DirName(target);
  const std::string base = BaseName(target);

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
  // What the caller saw must still be there.
  const FileStamp seen = exists ? FileStamp::Of(old) : FileStamp{};
  if (options.seen && !(exists && seen == *options.seen)) return Err(Changed(given));
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
  // Where a rename would change the file itself, rewrite it in place.
  if (exists && (old.st_nlink > 1 || old.st_uid != ::geteuid())) {
    return WriteInPlace(given, target, content, FileStamp::Of(old), options);
  }

  // The content in a temporary file with the old file's owner, mode and
  // attributes, synced. Unnamed first; named when the filesystem (or a
  // missing /proc) does not allow giving it a name later.
  const auto fill = [&](TempFile& tmp) -> int {
    if (exists) {
      if (::geteuid() == 0 || old.st_uid == ::geteuid()) {
        if (::fchown(tmp.fd(), old.st_uid, old.st_gid) != 0) {
          // Best effort: keeping owner and group is not worth failing the write.
        }
      }
      if (::fchmod(tmp.fd(), old.st_mode & 07777) != 0) return errno;
      CopyExtendedAttributes(target, tmp.fd());
    } else if (::fchmod(tmp.fd(), 0666 & ~CurrentUmask()) != 0) {
      return errno;
    }
    if (!WriteAll(tmp.fd(), content)) return errno;
    return ::fsync(tmp.fd()) != 0 ? errno : 0;
  };
  std::string named;
  int fd = MakeTemporary(dir, base, named);
  if (fd < 0) {
    // A writable file in a directory we may not write: in place.
    if (exists && (errno == EACCES || errno == EPERM)) {
      return WriteInPlace(given, target, content, FileStamp::Of(old), options);
    }
    return Err(WriteError(errno, given, FileOp::kOpen));
  }
  std::optional<TempFile> tmp(std::in_place, named, fd);
  if (int err = fill(*tmp); err != 0) return Err(WriteError(err, given, FileOp::kWrite));
  if (named.empty() && NameTemporary(tmp->fd(), dir, base, named) == 0) {
    tmp->SetPath(named);
  } else if (named.empty()) {
    named = dir + "/." + base + ".ikigai-XXXXXX";
    fd = ::mkostemp(named.data(), O_CLOEXEC);
    if (fd < 0) return Err(WriteError(errno, given, FileOp::kOpen));
    tmp.emplace(named, fd);
    if (int err = fill(*tmp); err != 0) return Err(WriteError(err, given, FileOp::kWrite));
  }
  if (tmp->Close() != 0) return Err(WriteError(errno, given, FileOp::kWrite));
  if (options.before_replace) options.before_replace();
  if (!Unchanged(target, exists, seen)) return Err(Changed(given));
  if (::rename(tmp->path().c_str(), target.c_str()) != 0) {
    const int err = errno;
    // A bind-mounted file (EBUSY), or a rename the filesystem refuses.
    if (exists && (err == EBUSY || err == EXDEV || err == EPERM)) {
      tmp.reset();  // removes it
      return WriteInPlace(given, target, content, FileStamp::Of(old), options);
    }
    return Err(WriteError(err, given, FileOp::kWrite));
  }
  tmp->Release();
  // Make the rename itself durable; a failure here cannot be undone and the
  // new content is in place, so it is not reported.
  SyncDirectory(dir);
  return WriteOutcome{!exists};
}

}  // namespace ikigai::toolkit
