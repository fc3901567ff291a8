#include "file_edit/read_whole_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"
#include "toolkit/error_codes.h"
#include "toolkit/file_errors.h"

namespace ikigai::file_edit {
namespace {

using toolkit::FileError;
using toolkit::FileOp;
using toolkit::ToolError;

ToolError Busy(const std::string& path) {
  return {toolkit::code::kFileBusy,
          "File busy: another edit of " + path + " has been running for " +
              std::to_string(kLockWaitMs / 1000) +
              " s. Try again when it has finished, or check that no stuck process holds it."};
}

// Waits for the exclusive lock on `fd`; false after kLockWaitMs.
bool Lock(int fd) {
  for (int waited = 0;; waited += 10) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) return true;  // no locks here: go on without
    if (waited >= kLockWaitMs) return false;
    ::usleep(10'000);
  }
}

}  // namespace

Result<WholeFile, ToolError> ReadWholeFile(const std::string& path) {
  ikigai::UniqueFd fd;
  struct stat st {};
  // The lock is on the file the path names once it is held: an edit that
  // replaced the file (rename) while this one waited leaves the old one
  // locked, and the new one must be opened again.
  for (int attempt = 0;; ++attempt) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; refused below.
    fd.Reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) return Err(FileError(errno, path, FileOp::kOpen));
    if (::fstat(fd.get(), &st) != 0) return Err(FileError(errno, path, FileOp::kOpen));
    if (!S_ISREG(st.st_mode)) break;  // refused below, unlocked
    if (!Lock(fd.get())) return Err(Busy(path));
    struct stat named {};
    if (::stat(path.c_str(), &named) != 0) return Err(FileError(errno, path, FileOp::kOpen));
    if ((named.st_dev == st.st_dev && named.st_ino == st.st_ino) || attempt == 8) {
      if (::fstat(fd.get(), &st) != 0) return Err(FileError(errno, path, FileOp::kOpen));
      break;
    }
  }
  if (S_ISDIR(st.st_mode)) {
    return Err(ToolError{toolkit::code::kIsDirectory,
                         "Cannot edit a directory: " + path +
                             ". Give the path of a file inside it; use glob to list its files."});
  }
  if (!S_ISREG(st.st_mode)) {
    return Err(ToolError{
        toolkit::code::kOpenFailed,
        "Cannot open file: " + path + " (not a regular file; only regular files can be edited)."});
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxEditBytes) {
    return Err(
        ToolError{toolkit::code::kFileTooLarge,
                  "File too large to edit: " + path + " is " + std::to_string(st.st_size) +
                      " bytes; file_edit reads a file whole and takes at most " +
                      std::to_string(kMaxEditBytes >> 20) +
                      " MiB. Edit it with bash (sed -i, or a short script), or split the file.",
                  {{"size", st.st_size}, {"limit", kMaxEditBytes}}});
  }
  WholeFile file{{}, toolkit::FileStamp::Of(st), {}};
  std::string& content = file.content;
  content.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Err(FileError(errno, path, FileOp::kRead));
    }
    content.append(buf, static_cast<std::size_t>(n));
    if (content.size() > kMaxEditBytes) {  // it grew while being read
      return Err(ToolError{toolkit::code::kFileTooLarge,
                           "File too large to edit: " + path + " grew past " +
                               std::to_string(kMaxEditBytes >> 20) +
                               " MiB while being read. Edit it with bash (sed -i, or a script)."});
    }
  }
  file.lock = std::move(fd);
  return file;
}

}  // namespace ikigai::file_edit
