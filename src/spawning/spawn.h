// Starting a tool process cheaply, with a place for a pre-exec step.
//
// fork() from a large host copies its page tables (tens of milliseconds for
// a big process); posix_spawn is cheap but has no hook between fork and
// exec, where a sandbox (Landlock) will be applied. Spawn uses
// clone(CLONE_VM | CLONE_VFORK): the child borrows the parent's memory on a
// small stack of its own until it calls exec, so the cost does not grow with
// the host, and it can run a pre-exec step. The child only makes system
// calls (no allocation, no locks): everything it needs is prepared first.
//
// The child: its own process group, stdin/stdout/stderr connected to pipes
// (or /dev/null), every other descriptor closed, signal dispositions and
// mask reset, an explicit environment, an optional working directory.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"

namespace ikigai::spawning {

struct SpawnRequest {
  std::string path;               // executable to run; no PATH search, and a
                                  // relative path is taken after chdir(cwd)
  std::vector<std::string> argv;  // argv[0] first
  std::vector<std::string> env;   // the whole environment, "NAME=value"
  std::string cwd;                // empty: the host's
  bool pipe_stdin = true;         // false: stdin is /dev/null
  // Runs in the child after chdir and before descriptors 3 and up are closed
  // (so it may use descriptors the parent prepared), then exec; must be
  // async-signal-safe (system calls only). Returns 0, or an errno that
  // fails the spawn.
  int (*pre_exec)(void* context) = nullptr;
  void* pre_exec_context = nullptr;
};

struct Child {
  pid_t pid = -1;      // also its process group id
  UniqueFd stdin_fd;   // write end (invalid when !pipe_stdin); non-blocking
  UniqueFd stdout_fd;  // read end; non-blocking
  UniqueFd stderr_fd;  // read end; non-blocking
};

// Errors say what failed ("exec /x/y-tool: Permission denied").
Result<Child, std::string> Spawn(const SpawnRequest& request);

// The host's children: those Spawn started are waited for by WaitChild;
// others may be processes it adopted as a subreaper (host_guard.h), which
// ReapAdopted waits for so that none stays a zombie.
//
// Waits for `pid`, a child Spawn started, and forgets it; the status as
// waitpid gives it.
int WaitChild(pid_t pid);
// In a subreaper (the host, once its guard runs), reaps every child that has
// ended and that neither Spawn started nor KeepChild named; elsewhere does
// nothing. So every child the host starts goes through Spawn or KeepChild.
// Cheap; called after each batch of tool processes.
void ReapAdopted();
// A child started otherwise (the host guard) that ReapAdopted leaves alone.
void KeepChild(pid_t pid);

// The host's environment as "NAME=value" strings, with `overrides` set.
std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides);

}  // namespace ikigai::spawning
