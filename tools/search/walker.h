// A parallel directory walker that honours ignore files, shared by the glob
// and grep tools (ripgrep's walker stage).
//
// Directories are a shared work queue (a stack: depth first) served by
// several threads; each directory carries the ignore rules in force there
// (its parents' plus its own .gitignore and .ignore), as an immutable chain
// shared with its children. A directory is read whole with getdents64 and
// its entries typed from d_type (fstatat only when the file system does not
// say), so an entry costs no system call and no allocation beyond its path.
// The walker never enters or reports `.git`, does not follow symbolic links
// to directories (they are reported as kSymlink, so links cannot make
// loops), skips directories it cannot read (counting them), and calls
// `visit` for every entry from whichever thread found it: callers collect
// per worker and sort afterwards, so the final output does not depend on
// the schedule.
//
// Ignore files (use_ignore_files), semantics in ignore_rules.h:
// - `.gitignore` in every directory, but only inside a git work tree (the
//   root or an ancestor has a `.git` directory or file; a nested repository
//   met during the walk starts its own rules and does not inherit the outer
//   .gitignore files); `.ignore` in every directory, in or out of git, and
//   winning over .gitignore (as ripgrep); the repository's info/exclude.
// - Inside a work tree, the ignore files of the directories between the
//   repository top and the root apply too (`*.o` or `/build` in the top
//   .gitignore while walking `src/`). Outside one, no file above the root
//   is read.
// - The root itself is always walked, even if a rule above it ignores it
//   (as ripgrep and fd do; git would list nothing there).
// - The global core.excludesFile (~/.config/git/ignore) is not read: what
//   the tools skip must not depend on the user's git configuration.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace ikigai::search {

enum class EntryType { kFile, kDirectory, kSymlink, kOther };

struct Entry {
  std::string_view path;  // relative to the walk's root, '/'-separated, no "./"
  std::string_view name;  // the last component of path
  EntryType type;
  // Skipped by an ignore rule. Such entries are reported (so a caller can say
  // how many were left out) but an ignored directory is not entered.
  bool ignored;
};

struct WalkOptions {
  std::string root = {};         // the directory to walk, as the user gave it
  bool use_ignore_files = true;  // .gitignore (in a git work tree), .ignore, .git/info/exclude
  bool include_hidden = false;   // entries whose name starts with '.'
  // Called for each directory before it is entered (never for the root, nor
  // for an ignored directory), after `visit` has reported it; return false
  // to prune it. Runs on worker threads, concurrently.
  std::function<bool(std::string_view dir_path)> descend = {};
  unsigned threads = 0;  // 0: one per core
};

struct WalkStats {
  std::size_t unreadable_directories = 0;
};

// Walks options.root (followed if it is a symbolic link; "" is "."). `visit`
// (entry, worker) is called concurrently, with worker in
// [0, WorkerCount(options)), and must not throw; the views in `entry` live
// only for the call. The error is errno for the root itself (ENOENT,
// ENOTDIR, EACCES).
Result<WalkStats, int> Walk(const WalkOptions& options,
                            const std::function<void(const Entry&, unsigned worker)>& visit);

unsigned WorkerCount(const WalkOptions& options);

}  // namespace ikigai::search
