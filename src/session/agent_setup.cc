#include "session/agent_setup.h"

#include <filesystem>

#include <unistd.h>

#include "agent/context_window.h"
#include "agent/system_prompt.h"
#include "base/format.h"
#include "base/todos.h"
#include "session/tool_sandbox.h"
#include "skills/prompt_section.h"

namespace ikigai::session {

Result<providers::ProviderSettings, std::string> ProviderSettingsFor(
    const config::AgentConfig& agent, const AgentFlags& flags) {
  std::string kind = !flags.provider.empty() ? flags.provider : agent.provider;
  if (kind.empty()) {
    // Whichever API the user has a key for, in this order; a base URL alone
    // means a local OpenAI-compatible server; with none, Anthropic (whose
    // missing key is then named).
    const bool openai = !agent.openai_api_key.empty() ||
                        agent.openai_base_url != config::AgentConfig{}.openai_base_url;
    if (!agent.anthropic_api_key.empty()) {
      kind = "anthropic";
    } else if (openai) {
      kind = "openai";
    } else if (!agent.gemini_api_key.empty()) {
      kind = "gemini";
    } else {
      kind = "anthropic";
    }
  }
  providers::ProviderSettings settings;
  settings.kind = kind;
  if (kind == "openai") {
    settings.base_url = agent.openai_base_url;
    settings.api_key = agent.openai_api_key;
  } else if (kind == "anthropic") {
    settings.base_url = agent.anthropic_base_url;
    settings.api_key = agent.anthropic_api_key;
  } else if (kind == "gemini") {
    settings.base_url = agent.gemini_base_url;
    settings.api_key = agent.gemini_api_key;
  } else {
    return Err("--provider " + kind + ": must be openai, anthropic or gemini");
  }
  return settings;
}

std::string ModelFor(const config::AgentConfig& agent, const AgentFlags& flags,
                     const std::string& provider) {
  if (!flags.model.empty()) return flags.model;
  if (!agent.model.empty()) return agent.model;
  if (provider == "openai") return "gpt-4.1";
  if (provider == "gemini") return "gemini-2.5-flash";
  return "claude-sonnet-4-5";
}

namespace {

agent::ComposedPrompt BasePrompt(const HostContext& host, permissions::Mode mode) {
  const config::AgentConfig& agent = host.config.agent;
  const std::string base =
      (agent.system_prompt.empty() ? agent::DefaultSystemPrompt() : agent.system_prompt) +
      "\n\n# Permissions and sandbox\n" + PermissionsSummary(mode, host.sandbox.get()) +
      "\nA call refused with PERMISSION_DENIED or SANDBOX_DENIED, or a command failing with "
      "\"Permission denied\", \"Read-only file system\" or a network error under the sandbox, "
      "is a decision of the user: do not try to get around it; say what you need instead.\n";
  if (!agent.agents_md) return {base, ""};
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return {base, ""};
  return agent::ComposeSystemPrompt(base, cwd);
}

agent::ComposedPrompt WithSkills(agent::ComposedPrompt prompt, const HostContext& host,
                                 const std::string& model) {
  if (!host.skills) return prompt;
  const long window = host.config.agent.context_window > 0 ? host.config.agent.context_window
                                                           : agent::KnownContextWindow(model);
  const skills::PromptSection section =
      skills::ComposePromptSection(*host.skills->catalog(), skills::PromptBudget(window));
  prompt.text += section.text;
  if (!section.warning.empty()) {
    prompt.problem += (prompt.problem.empty() ? "" : "\n") + section.warning;
  }
  return prompt;
}

}  // namespace

agent::ComposedPrompt SystemPromptFor(const HostContext& host, permissions::Mode mode,
                                      const std::string& model) {
  return WithSkills(BasePrompt(host, mode), host, model);
}

agent::AgentOptions AgentOptionsFor(const config::AgentConfig& agent, const std::string& model,
                                    std::string system_prompt) {
  agent::AgentOptions options;
  options.model = model;
  options.system_prompt = std::move(system_prompt);
  options.max_rounds = agent.max_rounds;
  options.max_tokens = agent.max_tokens;
  options.context_window =
      agent.context_window > 0 ? agent.context_window : agent::KnownContextWindow(model);
  options.compact_threshold = agent::CompactionThreshold(options.context_window, agent.max_tokens,
                                                         agent.compact_threshold_percent);
  options.reasoning_effort = agent.reasoning_effort;
  // The plan outlives the conversation it was made in.
  options.carry_over = [] { return todos::PlanForModel(todos::ReadTodos(todos::TodosPath())); };
  return options;
}

std::string MissingKeyMessage(const std::string& provider) {
  std::string how;
  if (provider == "openai") {
    how =
        "Set OPENAI_API_KEY (any value, e.g. none, for a local server), or ANTHROPIC_API_KEY "
        "with --provider anthropic, or GEMINI_API_KEY with --provider gemini";
  } else if (provider == "gemini") {
    how =
        "Set GEMINI_API_KEY, or ANTHROPIC_API_KEY with --provider anthropic, or OPENAI_API_KEY "
        "with --provider openai";
  } else {
    how =
        "Set ANTHROPIC_API_KEY, or OPENAI_API_KEY with --provider openai, or GEMINI_API_KEY "
        "with --provider gemini";
  }
  return "no API key for the " + provider + " provider. " + how +
         "; or put the key in ~/.ikigai/config.json (see docs/configuration.md). "
         "The tool commands (ikigai tool ...) work without one.";
}

Result<std::unique_ptr<agent::SessionLog>, std::string> CreateSessionLog(
    const std::string& provider, const std::string& model) {
  char cwd[4096];
  nlohmann::json header = {{"provider", provider},
                           {"model", model},
                           {"cwd", ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : ""}};
  // `ikigai --resume` without an id must find the user's session, not the
  // last subagent's.
  if (subagents::IsSubagent()) header["subagent"] = true;
  return agent::SessionLog::Create(agent::DefaultSessionDirectory(), header);
}

std::string CompactionLine(const agent::Compaction& compaction) {
  return std::string(compaction.automatic ? "Context compacted" : "Compacted") + ": " +
         FormatCount(compaction.tokens_before) + " -> about " +
         FormatCount(compaction.tokens_after) + " tokens.";
}

std::string ContextStatus(long context_tokens, const agent::AgentOptions& options,
                          const providers::Usage& used) {
  const long percent =
      options.context_window > 0 ? context_tokens * 100 / options.context_window : 0;
  return "Context: " + FormatCount(context_tokens) + " of " + FormatCount(options.context_window) +
         " tokens (" + std::to_string(percent) + "%); compacted past " +
         FormatCount(options.compact_threshold) + "\n" +
         "Tokens used: " + FormatCount(used.input_tokens) + " in, " +
         FormatCount(used.output_tokens) + " out, " + FormatCount(used.cache_read_tokens) +
         " read from the cache, " + FormatCount(used.cache_write_tokens) + " written to it\n";
}

Result<ResumedSession, std::string> ResumeSession(const std::string& id) {
  char buffer[4096];
  const std::string cwd = ::getcwd(buffer, sizeof buffer) != nullptr ? buffer : "";
  auto loaded = agent::LoadSession(agent::DefaultSessionDirectory(), id, cwd);
  if (!loaded) return Err(std::move(loaded.error()));
  ResumedSession session{loaded->id, std::move(loaded->messages), loaded->usage, nullptr, {}};
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < loaded->skipped.size() && i < kShown; ++i) {
    session.warnings.push_back("skipped a line it cannot read: " + loaded->skipped[i]);
  }
  if (loaded->skipped.size() > kShown) {
    session.warnings.push_back("skipped " + std::to_string(loaded->skipped.size() - kShown) +
                               " more unreadable lines");
  }
  if (!loaded->cwd.empty() && loaded->cwd != cwd) {
    session.warnings.push_back("session " + loaded->id + " was started in " + loaded->cwd +
                               "; its tools now act on " + cwd);
  }
  auto reopened = agent::SessionLog::Reopen(loaded->path, loaded->id);
  if (reopened) {
    if (!(*reopened)->repair_note().empty()) session.warnings.push_back((*reopened)->repair_note());
    session.log = std::move(*reopened);
  } else {
    session.warnings.push_back("the session will not be saved: " + reopened.error());
  }
  return session;
}

}  // namespace ikigai::session

namespace ikigai::session {

subagents::SubagentSettings SubagentSettingsFor(const HostContext& host,
                                                const std::string& provider,
                                                const std::string& model, permissions::Mode mode) {
  subagents::SubagentSettings settings;
  static const std::string self = [] {
    std::error_code error;
    const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string("/proc/self/exe") : path.string();
  }();
  settings.executable = self;
  settings.provider = provider;
  settings.model = model;
  settings.permissions = std::string(permissions::ModeName(mode));
  settings.trusted = host.trust.trusted;
  settings.max_rounds = host.config.agent.max_rounds;
  return settings;
}

}  // namespace ikigai::session
