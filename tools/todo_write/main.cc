// todo_write-tool: the agent's plan for a task of several steps (DECISIONS
// §9). The whole list is written each time to the session's plan file
// (base/todos.h), where the host sees it change: the REPL shows it as a
// checklist, -p as lines on stderr, and a compaction carries it over.
#include <string>

#include "base/todos.h"
#include "toolkit/atomic_file.h"
#include "toolkit/error_codes.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;
namespace todos = ikigai::todos;

constexpr std::string_view kSchema = R"json({
  "name": "todo_write",
  "description": "Keep a plan for a task of several steps, shown to the user as a checklist. Send the whole list each time: it replaces the previous one. Mark a step in_progress when you start it and completed as soon as it is done; keep one step in_progress at a time. Use it for work of three steps or more, not for a single quick change. Returns {todos, pending, in_progress, completed}.",
  "parameters": {
    "type": "object",
    "properties": {
      "todos": {
        "type": "array",
        "description": "The whole plan, in order",
        "items": {
          "type": "object",
          "properties": {
            "content": {"type": "string", "description": "The step, in a short imperative sentence"},
            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
          },
          "required": ["content", "status"]
        }
      }
    },
    "required": ["todos"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true}
})json";

Json Run(const Args& args, const CallContext&) {
  auto list = todos::ParseTodos(*args.Array("todos"));
  if (!list) return ToolError{code::kInvalidArg, list.error() + "."}.ToJson();
  const std::string path = todos::TodosPath();
  if (path.empty()) {
    return ToolError{code::kNoSession,
                     "This session has nowhere to keep a plan (IKIGAI_SESSION_DIR is not set): "
                     "run the tool through ikigai, or keep the plan in your answer."}
        .ToJson();
  }
  const Json file = {{"todos", todos::TodosJson(*list)}};
  auto written = ikigai::toolkit::WriteFileAtomically(path, file.dump(2) + "\n");
  if (!written) return written.error().ToJson();
  int counts[3] = {0, 0, 0};
  for (const todos::Todo& todo : *list) {
    ++counts[todo.status == "pending" ? 0 : todo.status == "in_progress" ? 1 : 2];
  }
  return Json{{"todos", todos::TodosJson(*list)},
              {"pending", counts[0]},
              {"in_progress", counts[1]},
              {"completed", counts[2]},
              {"output", "Plan updated: " + std::to_string(counts[2]) + " of " +
                             std::to_string(list->size()) + " steps completed."}};
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
