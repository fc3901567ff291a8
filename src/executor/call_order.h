// In which order the calls of one batch run (DECISIONS §3 runs a turn's calls
// at once; this keeps that from losing work).
//
// Two calls that each read, change and replace one file lose one change
// when they run at once: the last writer wins. So a call that may write
// runs after every earlier call it may touch and before every later one,
// while calls that cannot collide still run together. Each call is
// described by whether it writes and which path it names (a tool's
// "file_path" or "path" argument); a writer that names no path may touch anything and runs alone.
// Calls are grouped into waves, each wave running at once after the
// previous one: a call goes into the wave after the latest earlier call it
// conflicts with, so the model's order holds wherever it matters.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ikigai::executor {

struct CallAccess {
  bool writes = true;
  // Absolute, lexically normal; nullopt when the call names no path (it may
  // touch anything).
  std::optional<std::string> path;
  // For a file with several hard links, its device and inode: two of its
  // names are one file, however unlike they look.
  std::optional<std::string> file_identity = std::nullopt;
};

// The wave of each call (0 first), in the order of `calls`.
std::vector<std::size_t> AssignWaves(const std::vector<CallAccess>& calls);

// The path a call names: its path argument made absolute (against the
// working directory, which tools share with the host), symbolic links
// resolved where they exist, or nullopt.
std::optional<std::string> NamedPath(const std::string& path_argument);

// "device:inode" of `path` if it is a file with more than one hard link,
// else nullopt.
std::optional<std::string> HardLinkedIdentity(const std::string& path);

}  // namespace ikigai::executor
