// Running a shell command to completion, to its deadline, or to the point
// where only background processes are left.
//
// The loop polls two things: the output pipe and a pidfd that becomes
// readable when the shell exits. Waiting for EOF alone would hang on
// `server & echo started`, whose background child keeps the pipe open; so
// once the shell has exited, the tool drains what is already in the pipe
// (plus a short grace for output in flight) and returns. Such background
// processes are left running: the command may have started a server on
// purpose, and the model can stop it with another command; the host's guard
// ends them with the session (src/spawning/host_guard.h). Once the tool has
// exited nobody reads the pipe, so a background process that writes to it
// later gets SIGPIPE; the schema tells the model to redirect their output.
//
// At the deadline the whole process group is killed (SIGKILL) and the output
// so far is returned with timed_out. If the tool is cancelled (SIGTERM,
// SIGINT, SIGHUP) while the command runs, it kills the group and dies.
#pragma once

#include <chrono>
#include <string>

#include "output_capture.h"

namespace ikigai::bash_tool {

using Clock = std::chrono::steady_clock;

struct CommandRequest {
  std::string command;
  std::string working_directory;  // empty: the tool's own
  Clock::time_point deadline;     // when to kill the command's process group
};

struct CommandOutcome {
  int exit_code = 0;  // the shell's exit status, or 128+N if signal N killed it
  bool timed_out = false;
};

// Output goes to `capture`. Never fails: a shell that cannot be started is
// exit code 127 with the reason in the output, as a shell would report it.
CommandOutcome RunCommand(const CommandRequest& request, OutputCapture& capture);

}  // namespace ikigai::bash_tool
