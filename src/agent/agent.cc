#include "agent/agent.h"

#include "agent/compaction.h"
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

void Agent::SetMessages(std::vector<Message> messages) {
  messages_ = std::move(messages);
  reported_ = false;
}

void Agent::Clear() {
  messages_.clear();
  reported_ = false;
}

providers::TurnRequest Agent::RequestFor(std::vector<Message> messages) const {
  return {options_.model,      options_.system_prompt,
          std::move(messages), ToolSpecs(*registry_.Get()),
          options_.max_tokens, options_.reasoning_effort};
}

long Agent::ContextTokens() const {
  if (reported_) {
    long tokens = reported_tokens_;
    for (std::size_t i = reported_messages_; i < messages_.size(); ++i) {
      tokens += EstimateTokens(messages_[i]);
    }
    return tokens;
  }
  // Nothing reported for this conversation yet: all of it, estimated.
  long tokens = EstimateTokens(options_.system_prompt) + EstimateTokens(messages_);
  for (const auto& tool : ToolSpecs(*registry_.Get())) {
    tokens += EstimateTokens(tool.name) + EstimateTokens(tool.description) +
              EstimateTokens(tool.parameters.dump());
  }
  return tokens;
}

Result<Compaction, providers::ProviderError> Agent::Compact(const std::string& focus,
                                                            const AgentObserver& observer,
                                                            Cancellation& cancel) {
  return CompactNow(focus, false, observer, cancel);
}

Result<Compaction, providers::ProviderError> Agent::CompactNow(const std::string& focus,
                                                               bool automatic,
                                                               const AgentObserver& observer,
                                                               Cancellation& cancel) {
  Compaction compaction;
  compaction.automatic = automatic;
  compaction.tokens_before = ContextTokens();
  // The summary is asked of the conversation as the provider last saw it
  // (its cache serves that prefix), unless it no longer fits: then of the
  // latest part that does.
  std::vector<Message> source = messages_;
  if (compaction.tokens_before > options_.compact_threshold) {
    source = FittingTail(messages_, options_.compact_threshold / 2);
  }
  source.push_back({Role::kUser, CompactionPrompt(focus), {}, {}});
  // The summary is not shown as it streams; retries are.
  const providers::StreamSink sink{nullptr, nullptr, observer.on_retry};
  auto turn = provider_.StreamTurn(RequestFor(std::move(source)), sink, cancel.flag());
  if (!turn) return Err(std::move(turn.error()));
  compaction.usage = turn->usage;
  if (observer.on_usage) observer.on_usage(turn->usage);
  if (log_ != nullptr) log_->Append(UsageToJson(turn->usage));
  if (turn->text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Err(providers::ProviderError{
        providers::ErrorKind::kProtocol,
        "the model wrote no summary to compact the conversation with; try /compact again"});
  }
  std::string summary = std::move(turn->text);
  if (options_.carry_over) {
    if (const std::string kept = options_.carry_over(); !kept.empty()) summary += "\n\n" + kept;
  }
  messages_ = CompactedConversation(messages_, summary);
  reported_ = false;
  compaction.tokens_after = ContextTokens();
  if (log_ != nullptr) {
    nlohmann::json messages = nlohmann::json::array();
    for (const Message& message : messages_) messages.push_back(MessageToJson(message));
    log_->Append({{"type", "compaction"},
                  {"automatic", automatic},
                  {"tokens_before", compaction.tokens_before},
                  {"tokens_after", compaction.tokens_after},
                  {"messages", std::move(messages)}});
  }
  if (observer.on_compaction) observer.on_compaction(compaction);
  return compaction;
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
    const registry::Tool* tool = registry->Find(call.name);
    // Models send "" for a call without arguments.
    const std::string text = call.arguments.empty() ? "{}" : call.arguments;
    nlohmann::json arguments = nlohmann::json::parse(text, nullptr, false);
    // PreToolUse hooks speak first: a block (exit 2, deny, a hook that
    // failed) stops the call whatever the mode; allow and ask go to the
    // permission policy, where deny rules still win.
    HookAdvice advice = HookAdvice::kNone;
    std::string hook_reason;
    if (hooks_ != nullptr && tool != nullptr && !arguments.is_discarded()) {
      const hooks::ToolDecision hooked =
          hooks_->PreToolUse(call.name, arguments, call.id, cancel.fd());
      if (cancel.requested()) {
        wrapped[i] = protocol::WrapFailure(protocol::wrapper_code::kCancelled,
                                           "The user stopped the turn; this call did not run.");
        continue;
      }
      using Kind = hooks::ToolDecision::Kind;
      if (hooked.kind == Kind::kDeny) {
        wrapped[i] = protocol::WrapFailure(
            protocol::wrapper_code::kPermissionDenied,
            "A PreToolUse hook blocked this call: " + hooked.reason +
                "\nDo not retry it unchanged; follow what the hook says or ask the user.");
        continue;
      }
      if (hooked.kind == Kind::kAllow) advice = HookAdvice::kAllow;
      if (hooked.kind == Kind::kAsk) advice = HookAdvice::kAsk;
      hook_reason = hooked.reason;
    }
    const Permission permission =
        advice == HookAdvice::kNone ? permissions_.Decide(call, tool)
                                    : permissions_.DecideWithHooks(call, tool, advice, hook_reason);
    if (permission.stop_turn) cancel.Request();
    if (!permission.allowed) {
      wrapped[i] =
          protocol::WrapFailure(permission.stop_turn ? protocol::wrapper_code::kCancelled
                                                     : protocol::wrapper_code::kPermissionDenied,
                                permission.reason);
      continue;
    }
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
    // PostToolUse: every call's hooks at once; what they say to the model
    // goes beside the call's result.
    if (hooks_ != nullptr && hooks_->Has(hooks::Event::kPostToolUse) && !cancel.requested()) {
      std::vector<hooks::ToolUse> uses;
      for (std::size_t k = 0; k < runnable.size(); ++k) {
        uses.push_back(
            {runnable[k].tool, runnable[k].id, runnable[k].arguments, wrapped[runnable_index[k]]});
      }
      const std::vector<std::string> feedback = hooks_->PostToolUse(uses, cancel.fd());
      for (std::size_t k = 0; k < feedback.size(); ++k) {
        if (!feedback[k].empty()) wrapped[runnable_index[k]]["hook_feedback"] = feedback[k];
      }
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

std::vector<std::string> Agent::TakeTaskNotes(const AgentObserver& observer) {
  std::vector<std::string> lines = ended_tasks_.Take();
  if (!lines.empty() && observer.on_task_notes) observer.on_task_notes(lines);
  return lines;
}

Result<PromptOutcome, providers::ProviderError> Agent::Prompt(const std::string& text,
                                                              const AgentObserver& observer,
                                                              Cancellation& cancel) {
  PromptOutcome outcome;
  std::string with_notes = text;
  if (hooks_ != nullptr) {
    const hooks::PromptDecision hooked = hooks_->UserPromptSubmit(text, cancel.fd());
    if (cancel.requested()) {
      outcome.cancelled = true;
      return outcome;
    }
    if (hooked.refused) {
      outcome.refused = hooked.reason;
      return outcome;
    }
    if (!hooked.context.empty())
      with_notes += "\n\n[Context from the user's hooks]\n" + hooked.context;
  }
  for (const std::string& line : TakeTaskNotes(observer)) with_notes += "\n\n[" + line + "]";
  Record({Role::kUser, std::move(with_notes), {}, {}});
  const providers::StreamSink sink{observer.on_text, nullptr, observer.on_retry};
  const auto stopped = [&](const providers::ProviderError& error) {
    return error.kind == providers::ErrorKind::kCancelled;
  };
  bool compacted = false;           // since the last request: never twice in a row
  bool overflow_compacted = false;  // after a refusal: once per prompt
  for (;;) {
    if (outcome.rounds >= options_.max_rounds) {
      outcome.round_limit_reached = true;
      if (hooks_ != nullptr) hooks_->Stop(outcome.text, cancel.fd());
      return outcome;
    }
    if (!compacted && ContextTokens() > options_.compact_threshold) {
      auto done = CompactNow("", true, observer, cancel);
      if (!done) {
        if (!stopped(done.error())) return Err(std::move(done.error()));
        outcome.cancelled = true;
        return outcome;
      }
      outcome.usage += done->usage;
    }
    compacted = false;
    ++outcome.rounds;
    // The request borrows the conversation for the turn and gives it back:
    // a copy would cost the whole conversation again every round.
    providers::TurnRequest request = RequestFor(std::move(messages_));
    auto turn = provider_.StreamTurn(request, sink, cancel.flag());
    messages_ = std::move(request.messages);
    if (!turn) {
      if (stopped(turn.error())) {
        outcome.cancelled = true;
        return outcome;
      }
      if (turn.error().kind == providers::ErrorKind::kContextTooLong && !overflow_compacted) {
        // The window was smaller than judged: compact, and ask again.
        overflow_compacted = compacted = true;
        --outcome.rounds;
        auto done = CompactNow("", true, observer, cancel);
        if (done) {
          outcome.usage += done->usage;
          continue;
        }
        if (!stopped(done.error())) return Err(std::move(done.error()));
        outcome.cancelled = true;
        return outcome;
      }
      return Err(std::move(turn.error()));
    }
    outcome.usage += turn->usage;
    if (observer.on_usage) observer.on_usage(turn->usage);
    if (log_ != nullptr) log_->Append(UsageToJson(turn->usage));
    outcome.text = turn->text;
    Message answer{Role::kAssistant, turn->text, turn->tool_calls, {}};
    answer.replay = std::move(turn->replay);
    Record(std::move(answer));
    reported_ = turn->usage.TotalInput() > 0;  // some local servers report nothing
    reported_tokens_ = turn->usage.TotalInput() + turn->usage.output_tokens;
    reported_messages_ = messages_.size();
    if (turn->tool_calls.empty()) {
      if (hooks_ != nullptr) hooks_->Stop(outcome.text, cancel.fd());
      return outcome;
    }

    // Every call gets a result, even when cancelled, so the conversation
    // stays valid for the next prompt.
    std::vector<ToolResult> results = RunTools(turn->tool_calls, observer, cancel, outcome);
    if (const auto notes = TakeTaskNotes(observer); !notes.empty() && !results.empty()) {
      nlohmann::json last = nlohmann::json::parse(results.back().content, nullptr, false);
      if (last.is_object()) {
        last["background_tasks_ended"] = notes;
        results.back().content =
            last.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      }
    }
    Record({Role::kToolResults, "", {}, std::move(results)});
    if (cancel.requested()) {
      outcome.cancelled = true;
      return outcome;
    }
  }
}

}  // namespace ikigai::agent
