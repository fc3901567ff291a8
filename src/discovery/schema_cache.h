// Remembered --schema answers, so that a start with no tool changed runs
// no tool at all.
//
// Asking every tool for its schema costs a process start each: about a
// millisecond for a static binary, and up to a second for an interpreter
// on a busy machine. A tool's answer depends on its file, so the answer is
// kept with the file's identity and version: path, device, inode, size,
// modification and change times (nanoseconds), taken through symbolic
// links (a link pointed elsewhere names another file). An entry is used
// only while all of them match; any change asks the tool again.
//
// One JSON file, $XDG_CACHE_HOME/ikigai/schemas.json (default
// ~/.cache/ikigai/), private to the user, replaced atomically. What is read
// is checked, never trusted: a file that is not ours (another owner, not a
// regular file, too large), not JSON, of another format version, or an
// entry of the wrong shape is ignored, and the file is rewritten at the
// next save. Only answers that parsed as a schema are kept; every use
// parses them again. Another tool's change is not noticed when the
// schema comes from a file other than the tool's (a script importing a
// module): touch the tool, or delete the cache.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/result.h"

namespace ikigai::discovery {

// What identifies one version of a file.
struct FileVersion {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileVersion&) const = default;
};

// The version of the file `path` leads to; nullopt if it cannot be read.
std::optional<FileVersion> VersionOf(const std::string& path);

// $XDG_CACHE_HOME/ikigai/schemas.json, else $HOME/.cache/ikigai/schemas.json;
// empty if neither is set (no cache then).
std::string DefaultSchemaCachePath();

class SchemaCache {
 public:
  // Reads the cache at `path`. Never fails: what cannot be used is left
  // out and marks the cache for rewriting.
  static SchemaCache Load(const std::string& path);

  // The answer kept for `tool_path` at `version`, if any.
  std::optional<std::string> Find(const std::string& tool_path, const FileVersion& version) const;

  // Keeps `schema_text` (an answer that parsed) for `tool_path` at `version`.
  void Put(const std::string& tool_path, const FileVersion& version, std::string schema_text);

  // Writes the cache if anything changed since Load: entries whose file is
  // gone or changed are dropped. Creates the directory (mode 0700). Errors
  // say which file and why; a cache that cannot be saved costs only time.
  Result<bool, std::string> Save();

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    FileVersion version;
    std::string schema_text;
  };
  std::string path_;
  std::map<std::string, Entry> entries_;  // by tool path
  bool dirty_ = false;
};

}  // namespace ikigai::discovery
