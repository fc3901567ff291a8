// file-read-tool: read a file, or a window of its lines (seeds/000, DECISIONS §4).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/unique_fd.h"
#include "file_read/line_reader.h"
#include "toolkit/budget.h"
#include "toolkit/error_codes.h"
#include "toolkit/file_errors.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::FileError;
using ikigai::toolkit::FileOp;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;

constexpr std::string_view kSchema = R"json({
  "name": "file_read",
  "description": "Read contents of a file. Without offset and limit the whole file is returned, up to about 60 KB; a longer file comes back cut at a line boundary with truncated: true and next_offset, the line to pass as offset to read on. Binary files (a NUL byte in the first 8 KB) are refused with BINARY_FILE. Returns: {output, truncated?, next_offset?}.",
  "parameters": {
    "type": "object",
    "properties": {
      "file_path": {
        "type": "string",
        "description": "Absolute or relative path to file"
      },
      "offset": {
        "type": "integer",
        "description": "Line number to start reading from (1-based)"
      },
      "limit": {
        "type": "integer",
        "description": "Number of lines to read"
      }
    },
    "required": ["file_path"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false}
})json";

constexpr std::size_t kBinaryProbe = 8192;

// A file whose first 8 KB hold a NUL byte is binary (as git and grep decide).
ikigai::Result<bool, int> LooksBinary(int fd) {
  char probe[kBinaryProbe];
  ssize_t got;
  do {
    got = ::pread(fd, probe, sizeof probe, 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return ikigai::Err(errno);
  return std::memchr(probe, '\0', static_cast<std::size_t>(got)) != nullptr;
}

Json Run(const Args& args, const CallContext&) {
  const std::string& path = args.String("file_path");
  const std::int64_t offset = args.OptionalInt("offset").value_or(1);
  const std::optional<std::int64_t> limit = args.OptionalInt("limit");
  if (offset < 1) {
    return ToolError{code::kInvalidArg,
                     "Parameter 'offset' must be 1 or more (line numbers start at 1), got " +
                         std::to_string(offset) + "."}
        .ToJson();
  }
  if (limit && *limit < 1) {
    return ToolError{code::kInvalidArg, "Parameter 'limit' must be 1 or more, got " +
                                            std::to_string(*limit) +
                                            "; omit it to read to the end of the file."}
        .ToJson();
  }

  ikigai::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return FileError(errno, path, FileOp::kOpen).ToJson();
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return ToolError{code::kSizeFailed,
                     "Cannot get file size: " + path + " (" + std::strerror(errno) + ")"}
        .ToJson();
  }
  if (S_ISDIR(st.st_mode)) {
    return ToolError{code::kIsDirectory,
                     "Is a directory: " + path +
                         ". file_read reads files; use glob to list the files in it (pattern "
                         "'*' with path '" +
                         path + "')."}
        .ToJson();
  }
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    return ToolError{code::kSeekFailed,
                     "Cannot seek file: " + path +
                         " (a pipe or socket, not a regular file). Use bash to read from it."}
        .ToJson();
  }
  if (!S_ISREG(st.st_mode)) {
    return ToolError{code::kSizeFailed,
                     "Cannot get file size: " + path +
                         " (a device, not a regular file; it may never end). Use bash with head "
                         "-c to read part of it."}
        .ToJson();
  }
  // Opened non-blocking only so that opening a FIFO could not hang; a regular
  // file reads the same either way, but restore blocking mode to be plain.
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);

  auto binary = LooksBinary(fd.get());
  if (!binary) return FileError(binary.error(), path, FileOp::kRead).ToJson();
  if (*binary) {
    return ToolError{code::kBinaryFile,
                     "Binary file: " + path + " (" + std::to_string(st.st_size) +
                         " bytes; a NUL byte in its first 8 KB). It cannot be shown as text; "
                         "inspect it with bash (file, xxd, strings).",
                     {{"size", st.st_size}}}
        .ToJson();
  }
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);

  auto read = ikigai::file_read::ReadLines(fd.get(), {offset, limit, ikigai::toolkit::kTextBudget});
  if (!read) return FileError(read.error(), path, FileOp::kRead).ToJson();
  Json answer = {{"output", std::move(read->text)}};
  if (read->truncated) {
    answer["truncated"] = true;
    answer["next_offset"] = read->next_offset;
  }
  return answer;
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
