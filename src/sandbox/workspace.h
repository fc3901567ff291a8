// What the sandbox lets a tool touch (DECISIONS §6), found from the start
// directory and the environment.
//
// The workspace is the git top level, found by walking up from the start
// directory to the first `.git` without running git: a directory, or a file
// `gitdir: PATH` (a worktree or a submodule), whose git directory and its
// `commondir` become writable too. Protected (read-only at tier 2, checked
// after writing calls): their hooks, config and config.worktree, the same of
// every git directory below them (submodules in modules/, nested, and linked
// worktrees in worktrees/, found anew at each check), and the `.ikigai/` of
// the top level and of the start directory (where project tools load from).
// With no repository (or one that may not be writable), the start directory.
//
// What may not be writable, since writing there reaches what the sandbox
// keeps from tools: `/`, $HOME or a directory above it (~/.bashrc, and the
// secrets become readable under a writable root), and a directory that holds
// a secret or lies in one. Such a workspace is left empty (only the temp
// directories are writable); such a TMPDIR gives way to /tmp; such a
// writable root (sandbox.writable_roots, an outside git directory) is left
// out. Each says so in `refused`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace ikigai::sandbox {

struct Settings {
  std::string workspace;                     // absolute, writable; empty: only temp is writable
  std::vector<std::string> extra_writable;   // git dirs outside the workspace + writable_roots
  std::string temp_dir;                      // $TMPDIR, else /tmp
  std::vector<std::string> secrets;          // absolute paths made unreadable
  std::vector<std::string> protected_paths;  // read-only under tier 2 (.git/hooks, ...)
  // Git directories whose submodules' and linked worktrees' git directories
  // are protected too, as ProtectedPaths finds them.
  std::vector<std::string> git_dirs;
  std::string runtime_dir;  // $XDG_RUNTIME_DIR or /run/user/UID; hidden
  bool network = false;     // sandbox.network: every profile gets network
  // What was kept from being writable, and why: one line each, for the user.
  std::vector<std::string> refused;
};

// protected_paths and, found now, the hooks, config and config.worktree of
// every git directory below a git_dirs entry (modules/**, worktrees/*).
std::vector<std::string> ProtectedPaths(const Settings& settings);

// Why `dir` (absolute, resolved) may not be writable, or "" if it may: it is
// `/`, `home` or above it, or holds a secret or lies in one.
std::string WhyNotWritable(const std::string& dir, const std::string& home,
                           const std::vector<std::string>& secrets);

// The environment, by name (nullopt: unset). Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;
EnvLookup ProcessEnvironment();

// $TMPDIR if it may be writable (WhyNotWritable), else /tmp; a relative one
// as it is (Sandbox::Create refuses it).
std::string TempDirectory(const EnvLookup& env);

// The secrets below a home directory (~/.ssh, ~/.aws, ...).
std::vector<std::string> DefaultSecrets(const std::string& home);

// `cwd` must be an existing absolute directory. `writable_roots` are
// sandbox.writable_roots (absolute; those that do not exist are left out).
Result<Settings, std::string> DefaultSettings(const std::string& cwd, const EnvLookup& env,
                                              const std::vector<std::string>& writable_roots = {},
                                              bool network = false);

}  // namespace ikigai::sandbox
