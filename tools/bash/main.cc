// bash-tool: run a shell command and return its output (seeds/000 "Tool:
// bash", DECISIONS §4). Checks the arguments, refuses blocklisted commands,
// runs the rest under a deadline and fits the output into the answer.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "background.h"
#include "base/format.h"
#include "blocklist.h"
#include "output_capture.h"
#include "output_fit.h"
#include "run_command.h"
#include "toolkit/budget.h"
#include "toolkit/error_codes.h"
#include "toolkit/sandbox_errors.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;
namespace bash = ikigai::bash_tool;

constexpr std::string_view kSchema = R"json({
  "name": "bash",
  "description": "Execute a shell command and return output. The command runs with /bin/sh -c in its own process group, with stdin from /dev/null and no terminal, so interactive prompts get end-of-file instead of waiting; stdout and stderr are merged in order. Pagers are disabled (PAGER=cat, GIT_PAGER=cat) and git never prompts. A non-zero exit code is reported, not treated as an error; 128+N means killed by signal N. On timeout the whole process group is killed and the output so far is returned with timed_out, and timeout saying which limit ended it (timeout_seconds, or the host's deadline for bash, 10 minutes unless configured). Long output keeps its head and tail with a marker between them, and the full output is saved to a file whose path is full_output_path. Background processes (cmd &) keep running after the command returns, until the session ends; redirect their output to a file (cmd > log 2>&1 &), as nothing reads it afterwards. For a server, a watcher or a long build, prefer run_in_background: true, which answers at once with a task_id; task_output then reads what the command printed (stdout and stderr, also in output_file) and its status, and kill_shell stops its whole process group. Without network in the sandbox, a server started this way listens in the call's own network namespace where namespaces are used: later calls and the user cannot reach it (IKIGAI_SANDBOX says network off; the user can turn network on). Returns: {output, exit_code, timed_out?, timeout?, truncated?, full_output_path?}, or with run_in_background {task_id, status: \"running\", output_file, output}.",
  "parameters": {
    "type": "object",
    "properties": {
      "command": {
        "type": "string",
        "description": "Shell command to execute"
      },
      "timeout_seconds": {
        "type": "integer",
        "description": "Kill the command after this many seconds (default: the host's deadline for bash, 10 minutes unless configured; 120 without a host; never later than the host's deadline). With run_in_background: no limit unless given, and the host's deadline does not apply"
      },
      "working_directory": {
        "type": "string",
        "description": "Directory to run the command in (default: the current directory)"
      },
      "run_in_background": {
        "type": "boolean",
        "description": "Start the command and answer at once with a task_id, without waiting for it (default: false). It runs until it ends, kill_shell stops it, timeout_seconds passes (if given) or the session ends. Its output goes to output_file; read it with task_output (also to wait for the end), stop it with kill_shell"
      }
    },
    "required": ["command"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true}
})json";

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr seconds kDefaultTimeout{120};
constexpr seconds kLongestTimeout{30 * 24 * 3600};  // keeps time arithmetic far from overflow
// The command is killed this long before the host's deadline (at most; a
// fifth of the time left when the deadline is short) so the answer is
// printed before the host gives up on the tool.
constexpr milliseconds kHostDeadlineMargin{500};

// When the command is killed, and what to tell the model if it is.
struct CommandDeadline {
  bash::Clock::time_point at;
  std::string limit;
};

std::string Seconds(bash::Clock::duration d) {
  return ikigai::FormatDuration(std::chrono::round<seconds>(d));
}

CommandDeadline DeadlineFor(const CallContext& context,
                            std::optional<std::int64_t> timeout_seconds) {
  std::optional<CommandDeadline> deadline;
  if (timeout_seconds) {
    const seconds asked = std::min(seconds(*timeout_seconds), kLongestTimeout);
    deadline = {context.start + asked, "timeout_seconds (" + Seconds(asked) + ")"};
  }
  if (context.deadline) {
    const auto left =
        std::max(bash::Clock::duration::zero(), *context.deadline - bash::Clock::now());
    const auto margin = std::min<bash::Clock::duration>(kHostDeadlineMargin, left / 5);
    const auto host = *context.deadline - margin;
    if (!deadline || host < deadline->at) {
      deadline = {host, "the host's deadline for bash (" +
                            Seconds(*context.deadline - context.start) +
                            "; tools.bash.timeout_ms in ikigai's configuration), not "
                            "timeout_seconds"};
    }
  }
  return deadline.value_or(CommandDeadline{context.start + kDefaultTimeout,
                                           "the default of " + Seconds(kDefaultTimeout)});
}

ToolError InvalidArg(std::string message) { return {code::kInvalidArg, std::move(message)}; }

std::optional<ToolError> CheckWorkingDirectory(const std::string& dir) {
  const std::string next =
      " Give an existing directory, or omit working_directory to run in the "
      "current directory.";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return InvalidArg("working_directory not found: " + dir + "." + next);
    }
    return InvalidArg("working_directory cannot be used: " + dir + " (" + std::strerror(errno) +
                      ")." + next);
  }
  if (!S_ISDIR(st.st_mode)) {
    return InvalidArg("working_directory is not a directory: " + dir + "." + next);
  }
  if (::access(dir.c_str(), X_OK) != 0) {
    return InvalidArg("working_directory cannot be entered: " + dir + " (" + std::strerror(errno) +
                      ")." + next);
  }
  return std::nullopt;
}

// The command was checked as in the foreground; the answer comes as soon
// as its supervisor runs, never waiting for the command (background.h).
Json RunInBackground(const std::string& command, const std::string& dir,
                     std::optional<seconds> timeout) {
  if (ikigai::IsBlank(command)) {
    return InvalidArg("Parameter 'command' is empty: there is nothing to run in the background.")
        .ToJson();
  }
  if (timeout) timeout = std::min(*timeout, kLongestTimeout);
  auto task = bash::StartBackground({command, dir, timeout});
  if (!task) {
    return ToolError{task.error().no_session ? code::kNoSession : code::kStartFailed,
                     task.error().message}
        .ToJson();
  }
  return Json{{"task_id", task->task_id},
              {"status", "running"},
              {"output_file", task->output_file},
              {"output", "Started in the background: " + bash::CommandSummary(command, 200) +
                             ". Read its output with task_output, stop it with kill_shell."}};
}

Json Run(const Args& args, const CallContext& context) {
  const std::string& command = args.String("command");
  const std::optional<std::int64_t> timeout = args.OptionalInt("timeout_seconds");
  const std::string dir = args.OptionalString("working_directory").value_or("");

  if (command.find('\0') != std::string::npos) {
    return InvalidArg(
               "Parameter 'command' contains a NUL character, which a shell command "
               "cannot hold. Remove it.")
        .ToJson();
  }
  if (timeout && *timeout <= 0) {
    return InvalidArg("Parameter 'timeout_seconds' must be a positive number of seconds, got " +
                      std::to_string(*timeout) + ". Omit it to use the default (" +
                      std::to_string(kDefaultTimeout.count()) + " s).")
        .ToJson();
  }
  if (!dir.empty()) {
    if (dir.find('\0') != std::string::npos) {
      return InvalidArg("Parameter 'working_directory' contains a NUL character. Remove it.")
          .ToJson();
    }
    if (auto error = CheckWorkingDirectory(dir)) return error->ToJson();
  }
  const char* home = std::getenv("HOME");
  if (auto blocked = bash::CheckCommand(command, home != nullptr ? home : "")) {
    return ToolError{code::kBlocked, bash::BlockedMessage(*blocked)}.ToJson();
  }
  if (args.Bool("run_in_background", false)) {
    return RunInBackground(command, dir, timeout ? std::optional(seconds(*timeout)) : std::nullopt);
  }
  // seeds/000: an empty command is a shell error, 127 (dash itself would
  // exit 0 without a word).
  if (ikigai::IsBlank(command)) return Json{{"output", "sh: empty command"}, {"exit_code", 127}};

  const std::string spill_directory = bash::DefaultSpillDirectory();
  bash::OutputCapture capture(spill_directory);
  const CommandDeadline deadline = DeadlineFor(context, timeout);
  const bash::CommandOutcome outcome = bash::RunCommand({command, dir, deadline.at}, capture);

  Json answer{{"output", ""}, {"exit_code", outcome.exit_code}};
  if (outcome.timed_out) {
    answer["timed_out"] = true;
    answer["timeout"] = deadline.limit;
  }
  // The text's budget is what the rest of the largest possible answer
  // leaves of the whole answer's budget.
  Json largest = answer;
  largest["truncated"] = true;
  largest["full_output_path"] = spill_directory + "/ikigai-bash-XXXXXX.log";
  // Under ikigai's sandbox a failed command may get a one-line hint.
  const std::string longest_hint = ikigai::toolkit::SandboxHint("Permission denied", 1);
  if (!longest_hint.empty()) largest["sandbox_hint"] = longest_hint;
  const std::size_t overhead = largest.dump(-1, ' ', false, Json::error_handler_t::replace).size();
  const std::size_t budget =
      ikigai::toolkit::kOutputBudget > overhead ? ikigai::toolkit::kOutputBudget - overhead : 0;

  bash::FittedOutput fitted = bash::FitOutput(capture, budget);
  answer["output"] = std::move(fitted.text);
  if (fitted.truncated) {
    answer["truncated"] = true;
    if (!fitted.full_output_path.empty()) answer["full_output_path"] = fitted.full_output_path;
  }
  std::string hint = ikigai::toolkit::SandboxHint(answer["output"].get_ref<const std::string&>(),
                                                  outcome.exit_code);
  if (!hint.empty()) answer["sandbox_hint"] = std::move(hint);
  return answer;
}

}  // namespace

int main(int argc, char** argv) {
  // A background command's supervisor is this executable in a hidden mode
  // (background.h), so that it needs no file of its own to be found.
  if (argc > 1 && argv[1] == bash::kSupervisorMode) return bash::RunSupervisor(argc, argv);
  return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run});
}
