// Starting `/bin/sh -c COMMAND` in the conditions the bash tool promises
// (DECISIONS §4): its own session and process group (so a timeout can kill
// everything it started, and it has no controlling terminal), stdin from
// /dev/null (a prompt reads EOF instead of hanging the agent), stdout and
// stderr on one pipe (merged in the order they were written), no other
// descriptor inherited, and an environment that keeps pagers and git from
// waiting for a human. The process is started by the host's own spawner
// (src/spawning/spawn.h).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

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

// On failure, says why in words for the command's output.
Result<Shell, std::string> SpawnShell(const SpawnRequest& request);

// The environment a command runs with, in the foreground or the background:
// the tool's own, with what keeps pagers and git from waiting for a human,
// PWD for `working_directory` (empty: the tool's), and without the tool's
// deadline, which is the tool's business, not the command's.
std::vector<std::string> CommandEnvironment(const std::string& working_directory);

// Tells the host's guard (src/spawning/host_guard.h) about a session that
// may outlive the call (the command's, or a background task's supervisor):
// whatever is left of it is ended with the host, however the host ends.
// `session` is the session's id, its leader's pid. A no-op without
// IKIGAI_SESSION_DIR.
void RegisterWithHost(pid_t session);

}  // namespace ikigai::bash_tool
