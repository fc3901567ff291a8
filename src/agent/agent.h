// The agent loop (seeds/001 Execution Flow, DECISIONS §5).
//
// A prompt runs in rounds: the conversation and the registry's tools go to
// the provider; the streamed answer is kept; if the model asked for tools,
// every call of the turn passes the permission check and runs at once
// through the executor, and the wrapped results go back, each attached to
// its call id, in order; then the next round, until the model answers
// without tools or the round limit is reached. Cancelling stops the stream
// or the running tools; the conversation stays consistent (every tool call
// gets a result) so the next prompt can go on.
//
// Background tasks that ended since the last request are told to the model
// in that request (agent/task_notes.h): a line each after the user's text,
// or in the last tool result ("background_tasks_ended").
//
// Long sessions (DECISIONS §7, agent/compaction.h): before each request the
// agent judges the context it will send (the last reported input and
// output, plus an estimate of what was added since); past the threshold it
// compacts first. A provider refusing the request as too long for the
// context also compacts, once, and the request is sent again.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/cancellation.h"
#include "agent/permission.h"
#include "agent/session_log.h"
#include "agent/task_notes.h"
#include "executor/executor.h"
#include "hooks/hooks.h"
#include "providers/provider.h"
#include "registry/registry.h"

namespace ikigai::agent {

struct AgentOptions {
  std::string model;
  std::string system_prompt;
  int max_rounds = 50;
  int max_tokens = 8192;
  long context_window = 128'000;      // tokens the model reads at most
  long compact_threshold = 96'000;    // compact before a request that would pass it
  std::string reasoning_effort = {};  // reasoning models only; empty: the provider's default
  // What a compaction's summary must carry over word for word (the plan
  // of todo_write); may be empty.
  std::function<std::string()> carry_over = nullptr;
};

// What a compaction did: the context before (as last reported, or
// estimated) and after (estimated), in tokens.
struct Compaction {
  long tokens_before = 0;
  long tokens_after = 0;
  bool automatic = false;  // judged needed, or forced by the provider's refusal
  providers::Usage usage;  // what asking for the summary cost
};

// What a front end shows while a prompt runs; every member may be empty.
struct AgentObserver {
  std::function<void(std::string_view text)> on_text;
  std::function<void(const providers::ToolCall& call)> on_tool_start;
  std::function<void(const providers::ToolCall& call, const protocol::WrappedJson& wrapped,
                     std::chrono::microseconds elapsed)>
      on_tool_end;
  // The provider will retry after `wait` (a 429 or 5xx answer).
  std::function<void(std::string_view reason, std::chrono::milliseconds wait)> on_retry;
  // The conversation was compacted (before the request that needed it).
  std::function<void(const Compaction& compaction)> on_compaction;
  // What each request used, as it is reported (a subagent tells its parent).
  std::function<void(const providers::Usage& usage)> on_usage;
  // Background tasks ended since the last request (agent/task_notes.h): the
  // next request tells the model, one line each.
  std::function<void(const std::vector<std::string>& lines)> on_task_notes;
};

struct ToolExchange {
  providers::ToolCall call;
  protocol::WrappedJson wrapped;
};

struct PromptOutcome {
  std::string text;                 // the final answer (the last round's text)
  std::vector<ToolExchange> tools;  // every call of every round, in order
  providers::Usage usage;           // summed over the rounds
  int rounds = 0;
  bool round_limit_reached = false;
  bool cancelled = false;
  // A UserPromptSubmit hook refused the prompt: why (for the user). Nothing
  // was sent and the conversation is unchanged.
  std::string refused;
};

class Agent {
 public:
  Agent(providers::Provider& provider, const registry::RegistryHolder& registry,
        const executor::Executor& executor, AgentOptions options, PermissionPolicy& permissions,
        SessionLog* log);

  // Errors are the provider's (auth, network, ...); the user's message stays
  // in the conversation either way.
  Result<PromptOutcome, providers::ProviderError> Prompt(const std::string& text,
                                                         const AgentObserver& observer,
                                                         Cancellation& cancel);

  // Compacts the conversation now (/compact); `focus` says what the
  // summary must keep. An error is the provider's; the conversation is
  // unchanged then.
  Result<Compaction, providers::ProviderError> Compact(const std::string& focus,
                                                       const AgentObserver& observer,
                                                       Cancellation& cancel);

  // How full the context is: the tokens the next request would carry (the
  // last reported ones plus an estimate of what came since).
  long ContextTokens() const;

  const std::vector<providers::Message>& messages() const { return messages_; }
  void SetMessages(std::vector<providers::Message> messages);
  void Clear();
  void SetModel(std::string model) { options_.model = std::move(model); }
  void SetSystemPrompt(std::string prompt) { options_.system_prompt = std::move(prompt); }
  // The session's hooks (hooks/hooks.h): UserPromptSubmit before a prompt is
  // recorded, PreToolUse before each call's permission, PostToolUse after a
  // batch, Stop when a prompt's turn ends. Null: none. Not owned.
  void SetHooks(hooks::Hooks* hooks) { hooks_ = hooks; }
  const AgentOptions& options() const { return options_; }

 private:
  void Record(providers::Message message);
  std::vector<std::string> TakeTaskNotes(const AgentObserver& observer);
  providers::TurnRequest RequestFor(std::vector<providers::Message> messages) const;
  // Asks the model for the summary and replaces the conversation with it.
  Result<Compaction, providers::ProviderError> CompactNow(const std::string& focus, bool automatic,
                                                          const AgentObserver& observer,
                                                          Cancellation& cancel);
  std::vector<providers::ToolResult> RunTools(const std::vector<providers::ToolCall>& calls,
                                              const AgentObserver& observer, Cancellation& cancel,
                                              PromptOutcome& outcome);

  providers::Provider& provider_;
  const registry::RegistryHolder& registry_;
  const executor::Executor& executor_;
  AgentOptions options_;
  PermissionPolicy& permissions_;
  SessionLog* log_;
  hooks::Hooks* hooks_ = nullptr;
  EndedTasks ended_tasks_{tasks::TasksDirectory()};
  std::vector<providers::Message> messages_;
  // The input and output the provider last reported, and how many messages
  // the conversation had after its answer: what came since is estimated.
  long reported_tokens_ = 0;
  std::size_t reported_messages_ = 0;
  bool reported_ = false;
};

}  // namespace ikigai::agent
