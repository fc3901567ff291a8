// Starting `/bin/sh -c COMMAND` in the conditions the bash tool promises
// (DECISIONS §4): its own session and process group (so a timeout can kill
// everything it started, and it has no controlling terminal), stdin from
// /dev/null (a prompt reads EOF instead of hanging the agent), stdout and
// stderr on one pipe (merged in the order they were written), no other
// descriptor inherited, and an environment that keeps pagers and git from
// waiting for a human.
//
// fork + execve rather than posix_spawn: the host will later need a pre-exec
// step (a Landlock sandbox) in the same place, and setsid/close_range are
// plain calls here.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace ikigai::bash_tool {

struct SpawnRequest {
  std::string command;
  std::string working_directory;  // empty: the tool's own
};

struct Shell {
  pid_t pid = -1;   // also its process group and session id
  UniqueFd output;  // read end of the merged stdout+stderr pipe, non-blocking
  UniqueFd exited;  // a pidfd, readable once the shell has exited; invalid
                    // on kernels without pidfd_open (< 5.3)
};

// On failure (no pipe, no fork), says why in words for the command's output.
Result<Shell, std::string> SpawnShell(const SpawnRequest& request);

}  // namespace ikigai::bash_tool
