// Starting a process cheaply, with a place for a pre-exec step: the host's
// tool processes, and the bash tool's shell (one spawner for both).
//
// fork() from a large host copies its page tables (tens of milliseconds for
// a big process); posix_spawn is cheap but has no hook between fork and
// exec, where a sandbox (Landlock) will be applied. Spawn uses
// clone(CLONE_VM | CLONE_VFORK): the child borrows the parent's memory on a
// small stack of its own until it calls exec, so the cost does not grow with
// the host, and it can run a pre-exec step. The child only makes system
// calls (no allocation, no locks): everything it needs is prepared first.
//
// The child: its own process group (or session), stdin/stdout/stderr
// connected to pipes (or /dev/null; stderr may share stdout's pipe), every
// other descriptor closed (but an optional descriptor 3), signal dispositions and mask reset (the
// raw system call, which also reaches glibc's own signals 32 and 33), an explicit environment, an
// optional working directory.
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
  bool new_session = false;       // setsid (no controlling terminal) instead of setpgid
  bool merge_stderr = false;      // stderr on stdout's pipe, in the order written
  // Sent to the child when the thread that spawned it ends
  // (PR_SET_PDEATHSIG); 0: none. A parent already gone fails the spawn.
  int parent_death_signal = 0;
  // Runs in the child after chdir and before descriptors 3 and up are closed
  // (so it may use descriptors the parent prepared), then exec; must be
  // async-signal-safe (system calls only). Returns 0, or an errno that
  // fails the spawn.
  int (*pre_exec)(void* context) = nullptr;
  void* pre_exec_context = nullptr;
  // A descriptor the child gets as 3, after the pre-exec step (the host
  // channel, hostapi/host_channel.h); -1: none. The parent's stays open.
  int fd3 = -1;
};

struct Child {
  pid_t pid = -1;      // also its process group id
  UniqueFd stdin_fd;   // write end (invalid when !pipe_stdin); non-blocking
  UniqueFd stdout_fd;  // read end; non-blocking
  UniqueFd stderr_fd;  // read end; non-blocking (invalid with merge_stderr)
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

// This process's environment as "NAME=value" strings, without the variables
// named in `removed`, with `overrides` set.
std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::vector<std::string>& removed = {});

}  // namespace ikigai::spawning
