// The session's permission policy: the mode and rules of
// permissions/policy.h, and, where the verdict is "ask", a question to the
// user (the REPL), or a refusal where nobody can answer (`ikigai -p`): the
// model then gets PERMISSION_DENIED naming the flag or rule that would
// allow the call.
#pragma once

#include <functional>
#include <string>

#include "agent/permission.h"
#include "config/config.h"
#include "permissions/policy.h"
#include "session/host_context.h"
#include "session/project_store.h"

namespace ikigai::session {

struct Question {
  providers::ToolCall call;
  std::string reason;            // why it asks ("bash `npm test` needs approval in ask mode")
  std::string preview;           // for file edits: a unified diff; else empty
  std::string always_rule;       // the rule an "always" answer adds; empty: no "always"
  std::string hook_reason = {};  // a PreToolUse hook asked: its reason
};

struct Answer {
  enum class Kind { kYes, kAlways, kNo, kStop } kind = Kind::kNo;
  std::string reason;  // kNo: the user's words for the model (may be empty)
};

// Asks the user; empty when nobody can answer.
using Asker = std::function<Answer(const Question&)>;

class ApprovalPolicy final : public agent::PermissionPolicy {
 public:
  ApprovalPolicy(permissions::Mode mode, permissions::Rules rules, permissions::Place place,
                 Asker asker, ProjectStore store);

  agent::Permission Decide(const providers::ToolCall& call, const registry::Tool* tool) override;
  // A hook's allow turns the mode's question into yes; its ask turns the
  // mode's yes into a question (in -p: refused). Deny verdicts stay.
  agent::Permission DecideWithHooks(const providers::ToolCall& call, const registry::Tool* tool,
                                    agent::HookAdvice advice,
                                    const std::string& hook_reason) override;

  permissions::Mode mode() const { return mode_; }
  void SetMode(permissions::Mode mode) { mode_ = mode; }
  const permissions::Place& place() const { return place_; }

 private:
  permissions::Mode mode_;
  permissions::Rules rules_;
  permissions::Place place_;
  Asker asker_;
  ProjectStore store_;
};

// The policy for a session: the host's mode, the configured rules plus
// those "always" answers kept for this workspace (the sandbox's, else the
// working directory's). Errors name a bad rule.
Result<std::unique_ptr<ApprovalPolicy>, std::string> MakeApprovalPolicy(const HostContext& host,
                                                                        Asker asker);

}  // namespace ikigai::session
