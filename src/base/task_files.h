// Background tasks on disk: the one layout that the bash tool's background
// commands, the host's subagents, task_output and kill_shell share
// (DECISIONS §8). Each task has a directory in the session's scratch
// directory, $IKIGAI_SESSION_DIR/tasks/<task_id>/:
//
//   status.json   {"task_id", "kind": "bash" | "subagent", "description",
//                  "status": "running" | "completed" | "killed" | "failed",
//                  "exit_code" (once ended), "started_ms", "ended_ms"
//                  (milliseconds since the epoch)}; written whole and
//                  renamed into place by the task's owner, so a reader
//                  never sees half of it
//   output        what the task printed (a command's stdout and stderr; a
//                  subagent's answer), appended as it comes
//   control       a FIFO the owner reads: a line "kill" stops the task.
//                  Kills go through it, not a signal from a later tool
//                  call: under Landlock's signal scoping (ABI 6) one call's
//                  sandbox cannot signal what another call started.
//   read_offset   how much of `output` task_output has returned
//
// The owner is the supervisor process of a background command, or the host
// for a subagent. When the session ends, the host's guard ends them all
// and removes the directory.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace ikigai::tasks {

inline constexpr std::string_view kRunning = "running";
inline constexpr std::string_view kCompleted = "completed";
inline constexpr std::string_view kKilled = "killed";
inline constexpr std::string_view kFailed = "failed";

struct TaskStatus {
  std::string task_id;
  std::string kind;         // "bash" or "subagent"
  std::string description;  // the command, or the subagent's prompt (its start)
  std::string status;       // kRunning, kCompleted, kKilled, kFailed
  std::optional<int> exit_code;
  long long started_ms = 0;
  long long ended_ms = 0;  // 0 while running
  bool Ended() const { return status != kRunning; }
};

// $IKIGAI_SESSION_DIR/tasks, or "" when the session has no directory.
std::string TasksDirectory();

// "<prefix>_" and eight hex digits: "bg_1a2b3c4d" for a background command,
// "task_1a2b3c4d" for a subagent.
std::string NewTaskId(std::string_view prefix);
// Only ids of that form name a task (so an id is never a path).
bool ValidTaskId(std::string_view id);

// Creates the task's directory (mode 0700) and its control FIFO.
Result<std::string, std::string> CreateTaskDirectory(const std::string& tasks_dir,
                                                     const std::string& task_id);

Result<bool, std::string> WriteStatus(const std::string& task_dir, const TaskStatus& status);
// Errors say what is wrong ("no such task", "unreadable status: ...").
Result<TaskStatus, std::string> ReadStatus(const std::string& task_dir);

// Every task of the session, oldest first.
std::vector<TaskStatus> ListTasks(const std::string& tasks_dir);

// Asks the task's owner to stop it (a line on its control FIFO). False
// when nobody reads the FIFO (the owner has ended).
bool SendKill(const std::string& task_dir);

long long NowMs();

}  // namespace ikigai::tasks
