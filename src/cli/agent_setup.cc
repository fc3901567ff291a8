#include "cli/agent_setup.h"

#include <unistd.h>

#include "agent/system_prompt.h"

namespace ikigai::cli {

Result<providers::ProviderSettings, std::string> ProviderSettingsFor(
    const config::AgentConfig& agent, const AgentFlags& flags) {
  std::string kind = !flags.provider.empty() ? flags.provider : agent.provider;
  if (kind.empty()) {
    // Whichever API the user has a key for; a base URL alone means a local
    // OpenAI-compatible server.
    const bool openai = !agent.openai_api_key.empty() ||
                        agent.openai_base_url != config::AgentConfig{}.openai_base_url;
    kind = agent.anthropic_api_key.empty() && openai ? "openai" : "anthropic";
  }
  if (kind != "openai" && kind != "anthropic") {
    return Err("--provider " + kind + ": must be openai or anthropic");
  }
  providers::ProviderSettings settings;
  settings.kind = kind;
  settings.base_url = kind == "openai" ? agent.openai_base_url : agent.anthropic_base_url;
  settings.api_key = kind == "openai" ? agent.openai_api_key : agent.anthropic_api_key;
  return settings;
}

std::string ModelFor(const config::AgentConfig& agent, const AgentFlags& flags,
                     const std::string& provider) {
  if (!flags.model.empty()) return flags.model;
  if (!agent.model.empty()) return agent.model;
  return provider == "openai" ? "gpt-4.1" : "claude-sonnet-4-5";
}

std::string SystemPromptFor(const config::AgentConfig& agent) {
  const std::string base =
      agent.system_prompt.empty() ? agent::DefaultSystemPrompt() : agent.system_prompt;
  if (!agent.agents_md) return base;
  char cwd[4096];
  return ::getcwd(cwd, sizeof cwd) != nullptr ? agent::ComposeSystemPrompt(base, cwd) : base;
}

}  // namespace ikigai::cli
