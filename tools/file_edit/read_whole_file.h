// Reading the file to edit, whole, with errors the model can act on.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"
#include "toolkit/atomic_file.h"
#include "toolkit/tool_error.h"

namespace ikigai::file_edit {

// The largest file file_edit reads whole: FILE_TOO_LARGE beyond.
inline constexpr std::uint64_t kMaxEditBytes = 16 << 20;
// How long an edit waits for another edit of the same file.
inline constexpr int kLockWaitMs = 10'000;

// The bytes of the regular file at `path` (relative to the working
// directory; symbolic links followed). A directory or another non-regular
// file is an error that says what to do instead; it is never opened for
// reading, so a FIFO cannot block the tool. A file above kMaxEditBytes is
// FILE_TOO_LARGE, saying what to use instead.
//
// The file is read under an exclusive advisory lock (flock), held until the
// WholeFile is gone: two edits of one file (two names of it, two agents)
// then read, change and write one after another. The stamp check alone
// cannot see a change of the same size within one tick of the file
// system's clock. An edit that waits more than kLockWaitMs is FILE_BUSY.
struct WholeFile {
  std::string content;
  toolkit::FileStamp stamp;  // the version read, for the write's check
  UniqueFd lock;             // the locked descriptor
};
Result<WholeFile, toolkit::ToolError> ReadWholeFile(const std::string& path);

}  // namespace ikigai::file_edit
