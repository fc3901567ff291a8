// Background commands (`run_in_background: true`, DECISIONS §8): the bash
// tool answers at once, and a small supervisor process runs the command.
//
// The tool prepares the task's directory (src/base/task_files.h: status.json
// saying running, an empty output file, the control FIFO), then starts its
// own executable again in a hidden mode, the supervisor, and answers without
// waiting for anything else. The supervisor:
//   - lives in a session of its own: the host kills the tool's process group
//     when the tool exits, and the supervisor must not be part of it; its
//     stdin is the control FIFO (opened by the tool before the start, so a
//     kill sent right after the answer is never refused for want of a
//     reader), its stdout and stderr /dev/null (it must not hold the tool's
//     pipes, which the host reads to EOF);
//   - is registered with the host's guard (process-groups/), which ends it
//     and its command with the session, however the host ends;
//   - runs `/bin/sh -c COMMAND` in a process group of its own (in the
//     supervisor's session), stdout and stderr appended to the task's output,
//     with the foreground's environment (CommandEnvironment);
//   - on a "kill" line on the FIFO, SIGTERM/SIGINT/SIGHUP, or the end of
//     timeout_seconds, gives the command's whole group SIGTERM, then SIGKILL
//     after a short grace, and records `killed` with 128+signal;
//   - when the shell exits on its own, records `completed` with its exit code
//     (128+N for signal N); processes it left in the background keep running
//     until the session ends, as in the foreground;
//   - if the task's directory is removed (the session ended), kills the group
//     and exits.
// It needs no thread: one poll() on a pidfd of the shell, the FIFO, a
// signalfd and an inotify descriptor.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"

namespace ikigai::bash_tool {

// The hidden first argument that makes the bash tool a supervisor.
inline constexpr std::string_view kSupervisorMode = "--background-supervisor";

struct BackgroundRequest {
  std::string command;
  std::string working_directory;                // empty: the tool's own
  std::optional<std::chrono::seconds> timeout;  // none: runs until it ends or is killed
};

struct BackgroundTask {
  std::string task_id;
  std::string output_file;
};

struct BackgroundError {
  bool no_session = false;  // IKIGAI_SESSION_DIR is missing: not a failure of the system
  std::string message;
};

// Starts the command under a supervisor; returns once the supervisor runs,
// without waiting for the command.
Result<BackgroundTask, BackgroundError> StartBackground(const BackgroundRequest& request);

// The supervisor's main: argv is {exe, kSupervisorMode, TASK_DIR, WORKING_DIR,
// TIMEOUT_MS (0: none), COMMAND}. Returns the process's exit status.
int RunSupervisor(int argc, char** argv);

// The start of `command` for status.json's description and the answer:
// at most `max_bytes`, cut at a character boundary, with "..." if cut.
std::string CommandSummary(std::string_view command, std::size_t max_bytes);

}  // namespace ikigai::bash_tool
