// task_output-tool: the status of a background task (a bash command started
// with run_in_background, or a subagent) and what it printed since the
// previous call (DECISIONS §8, seed 004's task_output). With `wait`, blocks
// until the task ends or `timeout` seconds pass, and never past the host's
// deadline for the call.
#include <algorithm>
#include <chrono>
#include <string>

#include "base/format.h"
#include "base/task_files.h"
#include "read_output.h"
#include "toolkit/budget.h"
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
using std::chrono::seconds;

constexpr std::string_view kToolName = "task_output";
constexpr seconds kDefaultWait{30};
// Longer waits are cut to the host's deadline anyway; this bounds the
// arithmetic.
constexpr seconds kLongestWait{24 * 3600};
// Left of the text budget for the marker line after a cut piece.
constexpr std::size_t kMarkerReserve = 300;

constexpr std::string_view kSchema = R"json({
  "name": "task_output",
  "description": "Read a background task's status and what it printed since the previous task_output call for that task: a bash command started with run_in_background (stdout and stderr merged, in order) or a background subagent. Each call returns only new output, so two calls never return the same text; output too long for one answer is cut at a line and the rest comes with the next call (truncated and remaining_bytes say so). status is running, completed (exit_code says how: 128+N means killed by signal N), killed (by kill_shell, its timeout_seconds, or the session's end) or failed (a subagent that failed, its error in the output; or a task whose owner ended without recording the end). With wait: true, blocks until the task ends or timeout seconds pass (default 30; never past the tool call's own deadline), then answers as without wait. Returns: {task_id, kind, status, exit_code?, output, offset, next_offset, truncated?, remaining_bytes?, output_file}.",
  "parameters": {
    "type": "object",
    "properties": {
      "task_id": {
        "type": "string",
        "description": "The task's id, as bash with run_in_background (bg_...) or task with background (task_...) returned it"
      },
      "wait": {
        "type": "boolean",
        "description": "Wait for the task to end, up to timeout seconds (default: false)"
      },
      "timeout": {
        "type": "integer",
        "description": "With wait: the most seconds to wait (default: 30; at most until the call's own deadline)"
      }
    },
    "required": ["task_id"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false}
})json";

ToolError InvalidArg(std::string message) { return {code::kInvalidArg, std::move(message)}; }

Json Run(const Args& args, const CallContext& context) {
  const std::string& task_id = args.String("task_id");
  const bool wait = args.Bool("wait", false);
  const std::optional<std::int64_t> timeout = args.OptionalInt("timeout");
  if (timeout && *timeout < 0) {
    return InvalidArg("Parameter 'timeout' must be a number of seconds, 0 or more, got " +
                      std::to_string(*timeout) + ". Omit it to wait up to 30 seconds.")
        .ToJson();
  }
  auto dir = ikigai::toolkit::FindTask(kToolName, task_id);
  if (!dir) return dir.error().ToJson();
  const std::string& task_dir = *dir;

  auto status = tasks::ReadStatus(task_dir);
  if (status && !status->Ended() && wait) {
    const seconds wait_for = std::min(timeout ? seconds(*timeout) : kDefaultWait, kLongestWait);
    const Clock::time_point until =
        std::min(Clock::now() + wait_for, ikigai::toolkit::LatestAnswer(context));
    status = ikigai::toolkit::WaitForEnd(task_dir, until);
  }
  if (!status) {
    return ToolError{code::kNotFound,
                     "Task not found: " + task_id + ". Its record cannot be read (" +
                         status.error() +
                         "): the session that started it may have ended, taking its tasks with "
                         "it. Start the command again if it is still needed."}
        .ToJson();
  }
  // A task still running whose owner has ended will never record its end.
  std::string state = status->status;
  const bool lost = !status->Ended() && ikigai::toolkit::OwnerGone(task_dir);
  if (lost) state = tasks::kFailed;

  auto piece = ikigai::task_output::ReadNewOutput(task_dir, status->Ended() || lost,
                                                  ikigai::toolkit::kTextBudget - kMarkerReserve);
  if (!piece) {
    return ToolError{code::kReadFailed, "Cannot read the output of task " + task_id + ": " +
                                            piece.error() + ". Its output file is " + task_dir +
                                            "/output; read it with file_read."}
        .ToJson();
  }
  std::string output = std::move(piece->text);
  Json answer = {{"task_id", status->task_id}, {"kind", status->kind}, {"status", state}};
  if (status->exit_code && status->Ended()) answer["exit_code"] = *status->exit_code;
  if (piece->cut) {
    if (!output.empty() && output.back() != '\n') output += '\n';
    output += "[... " + ikigai::FormatSize(piece->remaining) +
              " more not shown yet: call task_output again to read on ...]";
    answer["truncated"] = true;
    answer["remaining_bytes"] = piece->remaining;
  }
  answer["output"] = std::move(output);
  answer["offset"] = piece->offset;
  answer["next_offset"] = piece->next_offset;
  answer["output_file"] = task_dir + "/output";
  if (lost) {
    answer["note"] =
        "The task's supervisor ended without recording the task's end (it was killed): what the "
        "task printed is above, but its exit code is unknown.";
  } else if (wait && !status->Ended()) {
    answer["note"] = "Still running when the wait ended; call task_output again to read on.";
  }
  return answer;
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
