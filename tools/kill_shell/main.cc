// kill_shell-tool: stops a background task, a bash command started with
// run_in_background (its whole process group) or a subagent (DECISIONS §8,
// seed 004's kill_shell). The kill goes through the task's control FIFO to
// its owner, never as a signal from this process: under Landlock's signal
// scoping one call's sandbox cannot signal what another call started. It
// then waits, briefly, for the owner to record the end.
#include <algorithm>
#include <chrono>
#include <string>

#include "base/format.h"
#include "base/task_files.h"
#include "toolkit/error_codes.h"
#include "toolkit/tasks.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Clock;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;
namespace tasks = ikigai::tasks;

constexpr std::string_view kToolName = "kill_shell";
// The supervisor gives the group 2 s between SIGTERM and SIGKILL, then up
// to 1 s to reap the shell; this leaves room for a busy machine.
constexpr std::chrono::seconds kKillWait{10};

constexpr std::string_view kSchema = R"json({
  "name": "kill_shell",
  "description": "Stop a background task: a bash command started with run_in_background (its whole process group gets SIGTERM, then SIGKILL after 2 seconds) or a background subagent. Answers status killed once the task is stopped, or already_completed if it had ended before (exit_code then says how). What it printed stays readable with task_output. Returns: {task_id, status: killed | already_completed, success, exit_code?}.",
  "parameters": {
    "type": "object",
    "properties": {
      "task_id": {
        "type": "string",
        "description": "The task's id, as bash with run_in_background (bg_...) or task with background (task_...) returned it"
      }
    },
    "required": ["task_id"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": false}
})json";

Json AlreadyCompleted(const tasks::TaskStatus& status) {
  Json answer = {{"task_id", status.task_id},
                 {"status", "already_completed"},
                 {"success", true},
                 {"ended_as", status.status}};
  if (status.exit_code) answer["exit_code"] = *status.exit_code;
  return answer;
}

ToolError Unreadable(const std::string& task_id, const std::string& why) {
  return {code::kNotFound, "Task not found: " + task_id + ". Its record cannot be read (" + why +
                               "): the session that started it may have ended, taking its "
                               "tasks with it; nothing is left to stop."};
}

Json Run(const Args& args, const CallContext& context) {
  const std::string& task_id = args.String("task_id");
  auto dir = ikigai::toolkit::FindTask(kToolName, task_id);
  if (!dir) return dir.error().ToJson();
  const std::string& task_dir = *dir;

  auto status = tasks::ReadStatus(task_dir);
  if (!status) return Unreadable(task_id, status.error()).ToJson();
  if (status->Ended()) return AlreadyCompleted(*status);

  if (!tasks::SendKill(task_dir)) {
    // Nobody reads the FIFO: the owner has just recorded the end, or it
    // ended without doing so.
    status = tasks::ReadStatus(task_dir);
    if (!status) return Unreadable(task_id, status.error()).ToJson();
    if (status->Ended()) return AlreadyCompleted(*status);
    return ToolError{code::kOwnerGone,
                     "Task " + task_id +
                         " cannot be stopped: its supervisor has ended without recording the "
                         "task's end, so nothing receives the kill. Whatever it left running "
                         "ends with the session; task_output still shows what it printed."}
        .ToJson();
  }
  const Clock::time_point until =
      std::min(Clock::now() + kKillWait, ikigai::toolkit::LatestAnswer(context));
  status = ikigai::toolkit::WaitForEnd(task_dir, until);
  if (!status) return Unreadable(task_id, status.error()).ToJson();
  if (status->status == tasks::kKilled) {
    Json answer = {{"task_id", status->task_id}, {"status", "killed"}, {"success", true}};
    if (status->exit_code) answer["exit_code"] = *status->exit_code;
    return answer;
  }
  // It ended on its own while the kill was on its way.
  if (status->Ended()) return AlreadyCompleted(*status);
  return ToolError{
      code::kKillPending,
      "The kill was sent to task " + task_id + ", but it had not recorded its end after " +
          ikigai::FormatDuration(std::chrono::duration_cast<std::chrono::milliseconds>(kKillWait)) +
          " (the machine may be very busy). Check with task_output {\"task_id\": \"" + task_id +
          "\"} in a moment; call kill_shell again if it is still running."}
      .ToJson();
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
