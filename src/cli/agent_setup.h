// From configuration and flags to a provider and an agent: which API, which
// model, which key, which system prompt.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "agent/agent.h"
#include "config/config.h"
#include "providers/provider.h"

namespace ikigai::cli {

struct AgentFlags {
  std::string provider;  // --provider, empty if not given
  std::string model;     // --model, empty if not given
};

// The provider settings the configuration and flags describe. Errors name
// the bad value ("--provider gemini: must be openai or anthropic").
Result<providers::ProviderSettings, std::string> ProviderSettingsFor(
    const config::AgentConfig& agent, const AgentFlags& flags);

// The model: the flag, else the configuration, else the provider's default.
std::string ModelFor(const config::AgentConfig& agent, const AgentFlags& flags,
                     const std::string& provider);

// The system prompt: configured or default, plus ./AGENTS.md if enabled.
std::string SystemPromptFor(const config::AgentConfig& agent);

}  // namespace ikigai::cli
