// Replacing a file's contents so that a reader sees the old file or the new
// one, never a mix, and a failure (a full disk) leaves the old one whole,
// without changing what the file is.
//
// Normally the content goes to a temporary file in the target's own
// directory (same filesystem, so rename is atomic): unnamed (O_TMPFILE)
// where the filesystem allows, so that a tool killed mid-write leaves
// nothing behind, named only for the instant before the rename; it is
// fsynced, gets the old file's mode bits, owner (when we may set it) and
// extended attributes (ACLs among them), and is renamed over the target.
// Where a rename would change the file itself, the file is rewritten in
// place instead (space reserved first, so a full disk fails before any byte
// changes): it has other hard links (a rename would split them), it belongs
// to another user, its directory is not writable (though the file is), or
// the rename fails with EBUSY (a bind-mounted file), EXDEV or EPERM. A
// symbolic link is followed to its final target; the link stays a link.
//
// Lost updates: right before the replacement the file is checked against
// what the caller saw (device, inode, size, modification time to the
// nanosecond); a file changed in between is FILE_CHANGED, and nothing is
// written.
#pragma once

#include <sys/stat.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "toolkit/tool_error.h"

namespace ikigai::toolkit {

struct WriteOutcome {
  bool created;  // the target did not exist before
};

// What identifies a version of a file.
struct FileStamp {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{};
  static FileStamp Of(const struct stat& st);
  bool operator==(const FileStamp& other) const;
};

struct WriteOptions {
  // The file as the caller read it (file_edit); without it, as it was when
  // the write began (file_write).
  std::optional<FileStamp> seen = std::nullopt;
  // Tests only: runs just before the last check, to change the file there.
  std::function<void()> before_replace = nullptr;
};

// `path` is the path as the caller gave it (used in messages).
Result<WriteOutcome, ToolError> WriteFileAtomically(std::string_view path, std::string_view content,
                                                    const WriteOptions& options = {});

// `path` with symbolic links in its last component followed to the end of the
// chain (a dangling link yields its target). Errors: ELOOP after 40 links.
Result<std::string, int> ResolveFinalSymlinks(std::string_view path);

std::string BaseName(std::string_view path);
std::string DirName(std::string_view path);

}  // namespace ikigai::toolkit
