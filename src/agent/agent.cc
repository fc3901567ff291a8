#include "agent/agent.h"

#include "agent/tool_specs.h"
#include "protocol/wrapper.h"

namespace ikigai::agent {

using providers::Message;
using providers::Role;
using providers::ToolCall;
using providers::ToolResult;

Agent::Agent(providers::Provider& provider, const registry::RegistryHolder& registry,
             const executor::Executor& executor, AgentOptions options,
             PermissionPolicy& permissions, SessionLog* log)
    : provider_(provider),
      registry_(registry),
      executor_(executor),
      options_(std::move(options)),
      permissions_(permissions),
      log_(log) {}

void Agent::Record(Message message) {
  if (log_ != nullptr) log_->AppendMessage(message);
  messages_.push_back(std::move(message));
}

std::vector<ToolResult> Agent::RunTools(const std::vector<ToolCall>& calls,
                                        const AgentObserver& observer, Cancellation& cancel,
                                        PromptOutcome& outcome) {
  const auto registry = registry_.Get();  // this batch keeps this snapshot
  std::vector<protocol::WrappedJson> wrapped(calls.size());
  std::vector<executor::Call> runnable;
  std::vector<std::size_t> runnable_index;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& call = calls[i];
    if (observer.on_tool_start) observer.on_tool_start(call);
    if (cancel.requested()) {
      wrapped[i] = protocol::WrapFailure(protocol::wrapper_code::kCancelled,
                                         "The user stopped the turn; this call did not run.");
      continue;
    }
    const Permission permission = permissions_.Decide(call, registry->Find(call.name));
    if (permission.stop_turn) cancel.Request();
    if (!permission.allowed) {
      wrapped[i] =
          protocol::WrapFailure(permission.stop_turn ? protocol::wrapper_code::kCancelled
                                                     : protocol::wrapper_code::kPermissionDenied,
                                permission.reason);
      continue;
    }
    // Models send "" for a call without arguments.
    const std::string text = call.arguments.empty() ? "{}" : call.arguments;
    nlohmann::json arguments = nlohmann::json::parse(text, nullptr, false);
    if (arguments.is_discarded()) {
      wrapped[i] = protocol::WrapFailure(
          protocol::wrapper_code::kInvalidParams,
          "The arguments of this call are not valid JSON. Send one JSON object that matches "
          "the tool's parameters.");
      continue;
    }
    runnable.push_back({call.id, call.name, std::move(arguments)});
    runnable_index.push_back(i);
  }
  std::vector<std::chrono::microseconds> elapsed(calls.size(), std::chrono::microseconds(0));
  if (cancel.requested()) {  // stopped while asking: nothing runs
    for (std::size_t index : runnable_index) {
      wrapped[index] = protocol::WrapFailure(protocol::wrapper_code::kCancelled,
                                             "The user stopped the turn; this call did not run.");
    }
  } else if (!runnable.empty()) {
    auto results = executor_.Run(*registry, runnable, cancel.fd());
    for (std::size_t k = 0; k < results.size(); ++k) {
      wrapped[runnable_index[k]] = std::move(results[k].wrapped);
      elapsed[runnable_index[k]] = results[k].elapsed;
    }
  }
  std::vector<ToolResult> tool_results;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (observer.on_tool_end) observer.on_tool_end(calls[i], wrapped[i], elapsed[i]);
    tool_results.push_back(
        {calls[i].id, calls[i].name,
         wrapped[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
    outcome.tools.push_back({calls[i], wrapped[i]});
  }
  return tool_results;
}

Result<PromptOutcome, providers::ProviderError> Agent::Prompt(const std::string& text,
                                                              const AgentObserver& observer,
                                                              Cancellation& cancel) {
  PromptOutcome outcome;
  Record({Role::kUser, text, {}, {}});
  const providers::StreamSink sink{observer.on_text, nullptr, observer.on_retry};
  for (;;) {
    if (outcome.rounds >= options_.max_rounds) {
      outcome.round_limit_reached = true;
      return outcome;
    }
    ++outcome.rounds;
    providers::TurnRequest request{options_.model, options_.system_prompt, messages_,
                                   ToolSpecs(*registry_.Get()), options_.max_tokens};
    auto turn = provider_.StreamTurn(request, sink, cancel.flag());
    if (!turn) {
      if (turn.error().kind == providers::ErrorKind::kCancelled) {
        outcome.cancelled = true;
        return outcome;
      }
      return Err(std::move(turn.error()));
    }
    outcome.usage += turn->usage;
    if (log_ != nullptr) log_->Append(UsageToJson(turn->usage));
    outcome.text = turn->text;
    Record({Role::kAssistant, turn->text, turn->tool_calls, {}, std::move(turn->replay)});
    if (turn->tool_calls.empty()) return outcome;

    // Every call gets a result, even when cancelled, so the conversation
    // stays valid for the next prompt.
    Record({Role::kToolResults, "", {}, RunTools(turn->tool_calls, observer, cancel, outcome)});
    if (cancel.requested()) {
      outcome.cancelled = true;
      return outcome;
    }
  }
}

}  // namespace ikigai::agent
