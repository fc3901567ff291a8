#include "file_edit/read_whole_file.h"

#include <fcntl.h>
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

}  // namespace

Result<WholeFile, ToolError> ReadWholeFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  ikigai::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return Err(FileError(errno, path, FileOp::kOpen));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Err(FileError(errno, path, FileOp::kOpen));
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
  WholeFile file{{}, toolkit::FileStamp::Of(st)};
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
  return file;
}

}  // namespace ikigai::file_edit
