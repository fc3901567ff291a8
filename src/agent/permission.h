// The one place that decides whether a tool call may run.
//
// Every call the model makes passes through Decide before the executor sees
// it, one after another (so a front end can ask about each in turn); the
// allowed ones then run together. The base class allows everything;
// session/approval.h decides by mode and rules (DECISIONS §6) and asks the
// user where one can answer.
#pragma once

#include <string>

#include "providers/conversation.h"
#include "registry/registry.h"

namespace ikigai::agent {

struct Permission {
  bool allowed = true;
  std::string reason;      // why not, for the model
  bool stop_turn = false;  // the user stopped the turn (Ctrl+C at a question)
};

// What PreToolUse hooks (hooks/answers.h) said of a call they let through:
// kAllow skips the mode's question (never a deny rule, nor the read-only
// mode's refusal); kAsk asks even where the mode would run the call.
enum class HookAdvice { kNone, kAllow, kAsk };

class PermissionPolicy {
 public:
  virtual ~PermissionPolicy() = default;
  // `tool` is null when the registry has no such tool (the executor then
  // answers TOOL_NOT_FOUND).
  virtual Permission Decide(const providers::ToolCall& call, const registry::Tool* tool);
  // The same with the hooks' advice; `hook_reason` is theirs (for kAsk: the
  // question's). Here, kAsk is refused: nobody can answer.
  virtual Permission DecideWithHooks(const providers::ToolCall& call, const registry::Tool* tool,
                                     HookAdvice advice, const std::string& hook_reason);
};

}  // namespace ikigai::agent
