#include "toolkit/file_errors.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "toolkit/error_codes.h"

namespace ikigai::toolkit {

ToolError FileError(int err, std::string_view path, FileOp op) {
  const std::string p(path);
  switch (err) {
    case ENOENT:
      return {code::kFileNotFound,
              "File not found: " + p + ". Check the path, or use glob to search for it."};
    case ENOTDIR:
      return {code::kFileNotFound, "File not found: " + p +
                                       ". A component of the path is a file, not a directory; "
                                       "check the path, or use glob to search for it."};
    case EACCES:
    case EPERM:
      return {code::kPermissionDenied,
              "Permission denied: " + p +
                  ". The file's or its directory's permissions forbid this; check them with "
                  "bash (ls -ld).",
              {{"path", p}}};
    case ENOSPC:
    case EDQUOT:
      return {code::kNoSpace, "No space left on device: " + p +
                                  ". The file was left as it was; free some space and try again."};
    default:
      break;
  }
  const std::string why = std::string(" (") + std::strerror(err) + ")";
  switch (op) {
    case FileOp::kOpen:
      return {code::kOpenFailed, "Cannot open file: " + p + why};
    case FileOp::kRead:
      return {code::kReadFailed, "Failed to read file: " + p + why};
    case FileOp::kWrite:
      return {code::kWriteFailed,
              "Failed to write file: " + p + why + ". The file was left as it was."};
  }
  return {code::kOpenFailed, "Cannot open file: " + p + why};
}

}  // namespace ikigai::toolkit
