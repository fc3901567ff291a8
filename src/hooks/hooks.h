// A session's hooks (DECISIONS §11): the configured commands of each event,
// given the event as JSON on stdin, their answers read (answers.h), and
// what the user should know told through `report`, a line at a time.
//
// The input follows Claude Code's names, so hooks written for it read it:
//   {"session_id", "transcript_path", "cwd", "permission_mode",
//    "hook_event_name", ...}
// plus, per event: PreToolUse "tool_name", "tool_input", "tool_use_id";
// PostToolUse the same and "tool_response" (the wrapped result the model
// sees); UserPromptSubmit "prompt"; SessionStart "source" ("startup",
// "resume", "clear"); Stop "stop_hook_active" (false) and
// "last_assistant_message". In a subagent, "subagent": true.
//
// An event without hooks costs nothing: no process, no JSON.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hooks/answers.h"
#include "hooks/hook_config.h"
#include "hooks/runner.h"
#include "protocol/wrapper.h"

namespace ikigai::hooks {

using Reporter = std::function<void(const std::string& line)>;

// One call for PostToolUse.
struct ToolUse {
  std::string tool;
  std::string call_id;
  nlohmann::json input;            // the arguments
  protocol::WrappedJson response;  // the wrapped result
};

class Hooks {
 public:
  Hooks(HooksConfig config, RunSettings settings, Reporter report);

  bool Has(Event event) const { return !config_.For(event).empty(); }
  // Whether some hook of a tool event is for `tool`.
  bool HasFor(Event event, std::string_view tool) const;

  // The session the hooks are told of (a new one after /clear).
  void SetSession(std::string id, std::string transcript_path);
  // The permission mode, read at each event (the REPL may change it).
  void SetModeName(std::function<std::string()> mode_name) { mode_name_ = std::move(mode_name); }

  ToolDecision PreToolUse(const std::string& tool, const nlohmann::json& input,
                          const std::string& call_id, int cancel_fd);
  // The hooks of every call at once; for each call, what goes to the model
  // beside its result ("" for nothing).
  std::vector<std::string> PostToolUse(const std::vector<ToolUse>& uses, int cancel_fd);
  // The context is the SessionStart hooks' (once) and this event's.
  PromptDecision UserPromptSubmit(const std::string& prompt, int cancel_fd);
  void Stop(const std::string& last_message, int cancel_fd);
  // `source`: "startup", "resume" or "clear". What the hooks print is kept
  // as context for the next prompt.
  void SessionStart(const std::string& source, int cancel_fd);

  const HooksConfig& config() const { return config_; }

 private:
  nlohmann::ordered_json Input(Event event) const;
  std::vector<HookRun> Run(const std::vector<HookJob>& jobs, int cancel_fd);
  void Report(const std::vector<std::string>& notes) const;

  HooksConfig config_;
  RunSettings settings_;
  Reporter report_;
  std::function<std::string()> mode_name_;
  std::string session_id_;
  std::string transcript_path_;
  std::string pending_context_;  // from SessionStart, for the next prompt
};

}  // namespace ikigai::hooks
