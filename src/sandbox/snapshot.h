// Fingerprints of the protected paths (.git/hooks, .git/config, .ikigai),
// for where no read-only bind covers them: below tier 2, and for a protected
// path that did not exist when the sandbox started. Taken before a batch of
// writing calls and compared after; a change is reported to the user.
//
// Each path is lstat'ed (existence, type, mode, size, mtime, ctime, inode);
// a directory's entries are fingerprinted recursively, up to a bound (past
// it, the directory counts as changed if its own fingerprint changed).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ikigai::sandbox {

struct Fingerprint {
  bool exists = false;
  mode_t mode = 0;  // type and permission bits
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  ino_t inode = 0;
  dev_t device = 0;
  bool operator==(const Fingerprint&) const = default;
};

struct ProtectedSnapshot {
  std::map<std::string, Fingerprint> entries;  // by path
};

inline constexpr std::size_t kSnapshotMaxEntries = 20000;

ProtectedSnapshot TakeSnapshot(const std::vector<std::string>& paths);

// Paths created, removed or changed between the two, sorted.
std::vector<std::string> ChangedPaths(const ProtectedSnapshot& before,
                                      const ProtectedSnapshot& after);

}  // namespace ikigai::sandbox
