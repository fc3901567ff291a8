// task-tool: hand a task to a subagent (DECISIONS §8). The tool holds no
// API key and, in the sandbox, has no network: it asks the host, through
// the host channel (toolkit/host_call.h), to start `ikigai -p` with a
// conversation of its own, and answers with what the subagent said.
#include <algorithm>
#include <chrono>
#include <string>

#include "toolkit/error_codes.h"
#include "toolkit/host_call.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Clock;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;

constexpr std::string_view kSchema = R"json({
  "name": "task",
  "description": "Delegate a self-contained task to a subagent: another ikigai agent with a fresh conversation, the same tools (except task), model and permission mode. It sees nothing of this conversation, so the prompt must say everything it needs: the goal, the files or commands involved, and what to report back. Use it for research across many files, or for independent pieces of work; several task calls in one turn run at once (at most 4 at a time). Returns the subagent's final answer {text, rounds, usage}. With background: true, returns {task_id, status: \"running\"} at once; read the answer later with task_output and stop it with kill_shell.",
  "parameters": {
    "type": "object",
    "properties": {
      "prompt": {
        "type": "string",
        "description": "The task for the subagent, with everything it needs to know"
      },
      "description": {
        "type": "string",
        "description": "A short (3-5 words) description of the task, shown to the user"
      },
      "background": {
        "type": "boolean",
        "description": "Run in the background and answer at once with a task_id (default false)"
      }
    },
    "required": ["prompt"]
  },
  "annotations": {"readOnlyHint": true},
  "host_api": true
})json";

// The subagent must end before the host ends this call: a margin of two
// seconds (a fifth of what is left, when less) to answer.
std::optional<long long> TimeLeftMs(const CallContext& context) {
  if (!context.deadline) return std::nullopt;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*context.deadline - Clock::now());
  const auto margin = std::min<std::chrono::milliseconds>(std::chrono::seconds(2), left / 5);
  return std::max<long long>(1, (left - margin).count());
}

Json Run(const Args& args, const CallContext& context) {
  const std::string& prompt = args.String("prompt");
  if (prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
    return ToolError{ikigai::toolkit::code::kInvalidArg,
                     "Parameter 'prompt' cannot be empty: say what the subagent should do."}
        .ToJson();
  }
  const bool background = args.Bool("background", false);
  Json params = {{"prompt", prompt}, {"background", background}};
  if (auto description = args.OptionalString("description")) params["description"] = *description;
  if (!background) {
    if (const auto left = TimeLeftMs(context)) params["timeout_ms"] = *left;
  }
  auto answer = ikigai::toolkit::CallHost("subagent/start", params);
  if (!answer) return answer.error().ToJson();
  if (background) {
    Json result = *answer;
    result["output"] = "Started subagent " + answer->value("task_id", std::string()) +
                       " in the background. Read its answer with task_output; stop it with "
                       "kill_shell.";
    return result;
  }
  if (answer->contains("error")) {
    Json failure = {
        {"error", "The subagent failed: " + answer->value("error", std::string("unknown error"))},
        {"error_code", ikigai::toolkit::code::kSubagentFailed},
        {"subagent_error_code", answer->value("error_code", std::string("ERROR"))}};
    for (const char* key : {"text", "rounds", "usage", "task_id", "session"}) {
      if (answer->contains(key)) failure[key] = (*answer)[key];
    }
    return failure;
  }
  return *answer;
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
