// Replacing a file's contents so that a reader sees the old file or the new
// one, never a mix, and a failure (a full disk) leaves the old one whole.
//
// The content goes to a temporary file in the target's own directory (same
// filesystem, so rename is atomic), is fsynced, gets the old file's mode
// bits (and owner, when we may set it), and is renamed over the target. A
// symbolic link is followed to its final target, which is replaced; the link
// stays a link. On any failure the temporary file is removed.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "toolkit/tool_error.h"

namespace ikigai::toolkit {

struct WriteOutcome {
  bool created;  // the target did not exist before
};

// `path` is the path as the caller gave it (used in messages).
Result<WriteOutcome, ToolError> WriteFileAtomically(std::string_view path,
                                                    std::string_view content);

// `path` with symbolic links in its last component followed to the end of the
// chain (a dangling link yields its target). Errors: ELOOP after 40 links.
Result<std::string, int> ResolveFinalSymlinks(std::string_view path);

std::string BaseName(std::string_view path);
std::string DirName(std::string_view path);

}  // namespace ikigai::toolkit
