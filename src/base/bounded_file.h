// Reading a file that someone else wrote (a repository's AGENTS.md, a
// project's config) without letting it hang, exhaust or leak.
//
// A cloned repository decides what `AGENTS.md` is: a FIFO would block a
// plain open() forever, a link to /dev/zero never ends, a link to
// ~/.ssh/id_rsa would send a private key to the model provider. So the file
// is opened with O_NONBLOCK, must be a regular file, is read up to a cap,
// and, when `confine_to` is given, must resolve (symbolic links followed)
// to a path inside that directory.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.h"

namespace ikigai {

struct BoundedFileOptions {
  std::size_t max_bytes = 256 * 1024;
  std::string confine_to;  // a directory; empty: anywhere
};

struct BoundedFile {
  bool exists = false;     // false: no such file (not an error)
  std::string text;        // at most max_bytes
  bool truncated = false;  // the file was longer than max_bytes
  std::size_t size = 0;    // the file's size
};

// Errors say what is wrong and with which file: "AGENTS.md: a FIFO, not a
// regular file", "AGENTS.md: leads outside the project (to
// /root/.ssh/id_rsa); copy the file into the project instead of linking it".
Result<BoundedFile, std::string> ReadBoundedFile(const std::string& path,
                                                 const BoundedFileOptions& options = {});

}  // namespace ikigai
