#include "agent/permission.h"

namespace ikigai::agent {

Permission PermissionPolicy::Decide(const providers::ToolCall&, const registry::Tool*) {
  return {true, ""};
}

Permission PermissionPolicy::DecideWithHooks(const providers::ToolCall& call,
                                             const registry::Tool* tool, HookAdvice advice,
                                             const std::string& hook_reason) {
  if (advice == HookAdvice::kAsk) {
    return {false,
            "Permission denied: a PreToolUse hook asks for approval (" + hook_reason +
                ") and nobody can approve it here.",
            false};
  }
  return Decide(call, tool);
}

}  // namespace ikigai::agent
