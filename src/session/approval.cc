#include "session/approval.h"

#include <unistd.h>

#include "sandbox/workspace.h"
#include "session/edit_preview.h"
#include "session/tool_sandbox.h"

namespace ikigai::session {

ApprovalPolicy::ApprovalPolicy(permissions::Mode mode, permissions::Rules rules,
                               permissions::Place place, Asker asker, ProjectStore store)
    : mode_(mode),
      rules_(std::move(rules)),
      place_(std::move(place)),
      asker_(std::move(asker)),
      store_(std::move(store)) {}

agent::Permission ApprovalPolicy::Decide(const providers::ToolCall& call,
                                         const registry::Tool* tool) {
  return DecideWithHooks(call, tool, agent::HookAdvice::kNone, "");
}

agent::Permission ApprovalPolicy::DecideWithHooks(const providers::ToolCall& call,
                                                  const registry::Tool* tool,
                                                  agent::HookAdvice advice,
                                                  const std::string& hook_reason) {
  if (tool == nullptr) return {true, "", false};  // the executor answers TOOL_NOT_FOUND
  const permissions::CallFacts facts = CallFactsFor(
      *tool, nlohmann::json::parse(call.arguments.empty() ? "{}" : call.arguments, nullptr, false));
  permissions::Decision decision = permissions::Decide(facts, mode_, rules_, place_);
  if (advice == agent::HookAdvice::kAllow && decision.verdict == permissions::Verdict::kAsk) {
    decision.verdict = permissions::Verdict::kAllow;
  }
  if (advice == agent::HookAdvice::kAsk && decision.verdict != permissions::Verdict::kDeny) {
    const std::string asks = "a PreToolUse hook asks for approval: " + hook_reason;
    if (decision.verdict == permissions::Verdict::kAllow) {
      decision.reason = asks;
      decision.how_to_allow = "change the PreToolUse hook (hooks.PreToolUse in the configuration)";
    } else {
      decision.reason += "; " + asks;
    }
    decision.verdict = permissions::Verdict::kAsk;
  }
  switch (decision.verdict) {
    case permissions::Verdict::kAllow:
      return {true, "", false};
    case permissions::Verdict::kDeny:
      return {false,
              "Permission denied: " + decision.reason +
                  ". Do not try to get around this; if the "
                  "call is needed, ask the user (to allow it: " +
                  decision.how_to_allow + ").",
              false};
    case permissions::Verdict::kAsk:
      break;
  }
  if (!asker_) {
    return {false,
            "Permission denied: " + decision.reason +
                " and nobody can approve it here (ikigai -p, ikigai mcp serve). Do not try to get "
                "around "
                "this; tell the user what you need. To allow it: " +
                decision.how_to_allow + ".",
            false};
  }
  const std::string rule = permissions::RuleToAllow(facts, place_);
  const Answer answer =
      asker_({call, decision.reason, EditPreview(call.name, facts.arguments), rule,
              advice == agent::HookAdvice::kAsk ? hook_reason : std::string()});
  switch (answer.kind) {
    case Answer::Kind::kAlways:
      // No rule fits some calls (always_rule is empty): "always" is then not
      // offered, and taken as "yes" should it come anyway.
      if (rule.empty()) return {true, "", false};
      if (auto parsed = permissions::ParseRule(rule)) rules_.allow.push_back(std::move(*parsed));
      if (!place_.workspace.empty()) (void)store_.AddAllowRule(place_.workspace, rule);
      [[fallthrough]];
    case Answer::Kind::kYes:
      return {true, "", false};
    case Answer::Kind::kStop:
      return {false, "The user stopped the turn; this call did not run.", true};
    case Answer::Kind::kNo:
      break;
  }
  return {false,
          "The user declined this call" +
              (answer.reason.empty() ? std::string(".") : ": " + answer.reason) +
              " Do not retry it unchanged; adjust the approach or ask the user.",
          false};
}

Result<std::unique_ptr<ApprovalPolicy>, std::string> MakeApprovalPolicy(const HostContext& host,
                                                                        Asker asker) {
  char cwd[4096];
  const std::string here = ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".";
  std::string workspace;
  if (host.sandbox) {
    workspace = host.sandbox->settings().workspace;
  } else if (auto settings = sandbox::DefaultSettings(here, sandbox::ProcessEnvironment())) {
    workspace = settings->workspace;
  }
  permissions::Place place{workspace, here};
  ProjectStore store(ProjectStore::DefaultPath());
  std::vector<std::string> allow = host.config.permissions.allow;
  if (!place.workspace.empty()) {
    if (auto kept = store.AllowRules(place.workspace)) {
      allow.insert(allow.end(), kept->begin(), kept->end());
    }
  }
  auto rules = permissions::ParseRules(allow, host.config.permissions.deny);
  if (!rules) return Err(std::move(rules).error());
  return std::make_unique<ApprovalPolicy>(host.mode, std::move(*rules), std::move(place),
                                          std::move(asker), std::move(store));
}

}  // namespace ikigai::session
