// From configuration and flags to a provider and an agent: which API, which
// model, which key, which system prompt.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent.h"
#include "agent/session_log.h"
#include "agent/system_prompt.h"
#include "config/config.h"
#include "providers/provider.h"
#include "session/host_context.h"
#include "subagents/subagent.h"

namespace ikigai::session {

struct AgentFlags {
  std::string provider;  // --provider, empty if not given
  std::string model;     // --model, empty if not given
};

// The provider settings the configuration and flags describe. Errors name
// the bad value ("--provider mistral: must be openai, anthropic or gemini").
Result<providers::ProviderSettings, std::string> ProviderSettingsFor(
    const config::AgentConfig& agent, const AgentFlags& flags);

// The model: the flag, else the configuration, else the provider's default.
std::string ModelFor(const config::AgentConfig& agent, const AgentFlags& flags,
                     const std::string& provider);

// The system prompt: configured or default, what the permission mode and
// the sandbox allow, plus ./AGENTS.md if enabled, plus the skills' names
// and descriptions within their budget of `model`'s context window
// (skills/prompt_section.h). `problem` says why AGENTS.md was left out or
// cut and which skills did not fit: show it once.
agent::ComposedPrompt SystemPromptFor(const HostContext& host, permissions::Mode mode,
                                      const std::string& model = "");

// The agent's options: this model, the system prompt, the configured limits.
agent::AgentOptions AgentOptionsFor(const config::AgentConfig& agent, const std::string& model,
                                    std::string system_prompt);

// The one line said when the conversation was compacted:
// "Context compacted: 152,300 -> 12,400 tokens."
std::string CompactionLine(const agent::Compaction& compaction);

// The lines of /status about the conversation: how full the context is
// (`context_tokens` of `window`, and where it compacts), the tokens used.
std::string ContextStatus(long context_tokens, const agent::AgentOptions& options,
                          const providers::Usage& used);

// What a subagent started now gets: this provider and model, the mode
// (never a wider one), the folder's trust, the round cap.
subagents::SubagentSettings SubagentSettingsFor(const HostContext& host,
                                                const std::string& provider,
                                                const std::string& model, permissions::Mode mode);

// What to do when the provider has no key (one-shot mode and the REPL say
// the same): which variable to set, or the configuration file.
std::string MissingKeyMessage(const std::string& provider);

// A new session log in ~/.ikigai/sessions, started with the provider, the
// model and the working directory; errors say why it cannot be written.
Result<std::unique_ptr<agent::SessionLog>, std::string> CreateSessionLog(
    const std::string& provider, const std::string& model);

// A session to continue (`id`, or the most recent one started in the
// working directory when empty): its messages, its file reopened for
// appending (null if it cannot be), and what the user should be told
// (lines skipped, a torn line cut off, another directory).
struct ResumedSession {
  std::string id;
  std::vector<providers::Message> messages;
  providers::Usage usage;  // what the session's requests used so far
  std::unique_ptr<agent::SessionLog> log;
  std::vector<std::string> warnings;
};
Result<ResumedSession, std::string> ResumeSession(const std::string& id);

}  // namespace ikigai::session
