// ask_user-tool: put a question to the user and wait for the answer
// (DECISIONS §9). The tool cannot reach the user itself: it asks the host
// through the host channel's `elicit` (toolkit/host_call.h), which the
// REPL answers on its terminal and -p, subagents and MCP clients answer
// NO_USER.
#include <string>

#include "base/format.h"
#include "toolkit/error_codes.h"
#include "toolkit/host_call.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;
using ikigai::IsBlank;

constexpr std::string_view kSchema = R"json({
  "name": "ask_user",
  "description": "Ask the user a question and wait for the answer. Use it when you need a decision or a fact only the user has (which of two designs, a name, whether to go on), not for what you can find out with the other tools. With options, the user picks one by number or types their own answer. Returns {answer, option?} (option: the number picked), or {declined: true} when the user would not answer. Without a user (ikigai -p, a subagent) it fails with NO_USER: then decide yourself and say what you assumed.",
  "parameters": {
    "type": "object",
    "properties": {
      "question": {"type": "string", "description": "The question, complete and short"},
      "options": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Up to 20 answers to choose from (the user may still type another)"
      }
    },
    "required": ["question"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false},
  "host_api": true
})json";

constexpr std::size_t kMaxOptions = 20;

Json Run(const Args& args, const CallContext&) {
  const std::string& question = args.String("question");
  if (IsBlank(question)) {
    return ToolError{code::kInvalidArg, "Parameter 'question' cannot be empty: say what to ask."}
        .ToJson();
  }
  Json params = {{"message", question}};
  if (const Json* options = args.Array("options"); options != nullptr && !options->empty()) {
    if (options->size() > kMaxOptions) {
      return ToolError{
          code::kInvalidArg,
          "Parameter 'options' has " + std::to_string(options->size()) + " items; give at most 20."}
          .ToJson();
    }
    for (const Json& option : *options) {
      if (!option.is_string() || IsBlank(option.get<std::string>())) {
        return ToolError{code::kInvalidArg,
                         "Each of 'options' must be a non-empty string (an answer to offer)."}
            .ToJson();
      }
    }
    params["options"] = *options;
  }
  auto reply = ikigai::toolkit::CallHost("elicit", params);
  if (!reply) return reply.error().ToJson();
  const Json action = reply->is_object() ? reply->value("action", Json()) : Json();
  const Json content = reply->is_object() ? reply->value("content", Json()) : Json();
  if (action == "accept" && content.is_object() && content.value("answer", Json()).is_string()) {
    Json result = {{"answer", content["answer"]}};
    if (content.contains("option")) result["option"] = content["option"];
    result["output"] = "The user answered: " + result["answer"].get<std::string>();
    return result;
  }
  return Json{{"declined", true},
              {"output", action == "decline"
                             ? "The user declined to answer. Do not ask the same again; go on "
                               "without it or ask what they want instead."
                             : "The question was dismissed without an answer."}};
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
