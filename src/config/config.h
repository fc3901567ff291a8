// Configuration: JSON files layered system, user, project, then the
// environment, then flags (DECISIONS §5). Unknown keys and bad values are
// errors that name the file and the key, never silently ignored.
//
// Keys are declared once, in a table (config.cc): name, type, default,
// check, description. docs/configuration.md lists the same keys.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/mcp_servers.h"
#include "executor/executor.h"
#include "hooks/hook_config.h"

namespace ikigai::config {

// The agent's settings (DECISIONS §5).
struct AgentConfig {
  std::string provider;  // "openai" | "anthropic" | "gemini"; empty: chosen by which key is set
  std::string model;     // empty: the provider's default
  std::string openai_base_url = "https://api.openai.com/v1";
  std::string openai_api_key;
  std::string anthropic_base_url = "https://api.anthropic.com";
  std::string anthropic_api_key;
  std::string gemini_base_url = "https://generativelanguage.googleapis.com";
  std::string gemini_api_key;
  int max_rounds = 50;
  int max_tokens = 8192;
  std::string system_prompt;  // empty: ikigai's default
  bool agents_md = true;      // append the project's AGENTS.md
  long context_window = 0;    // tokens; 0: the model's, from the table of known models
  int compact_threshold_percent = 80;
  std::string reasoning_effort;  // minimal, low, medium, high; empty: the provider's default
};

// DECISIONS §6. The mode and rules are checked by src/permissions/ when the
// session starts (an unknown rule stops ikigai there, naming it).
struct PermissionsConfig {
  std::string mode = "ask";
  std::vector<std::string> allow;
  std::vector<std::string> deny;
};

struct SandboxConfig {
  bool network = false;
  std::vector<std::string> writable_roots;
};

struct Config {
  executor::ExecutorOptions tools;  // tool_timeout_ms, tool_output_limit_bytes, tools.<name>.*
  std::chrono::milliseconds schema_timeout{1000};
  AgentConfig agent;
  PermissionsConfig permissions;
  SandboxConfig sandbox;
  // mcp_servers.NAME (config/mcp_servers.h); a later file's entry replaces
  // an earlier one's whole.
  std::map<std::string, McpServerConfig, std::less<>> mcp_servers;
  // hooks.EVENT (hooks/hook_config.h); the layers' lists add up.
  hooks::HooksConfig hooks;
};

struct ConfigFiles {
  std::string
      system;        // PREFIX/etc/ikigai/config.json (/etc/ikigai/config.json when PREFIX is /usr)
  std::string user;  // ~/.ikigai/config.json
  std::string project;  // ./.ikigai/config.json
};

ConfigFiles DefaultConfigFiles();

// Missing files (and empty paths) are fine; unreadable or invalid ones are
// errors: "/home/u/.ikigai/config.json: tools.bash.timeout_ms: must be a
// positive integer, got \"10\"". Later layers override earlier ones key by key.
Result<Config, std::string> LoadConfig(const ConfigFiles& files);

// The same with the environment given (for tests): `env(name)` is the
// variable's value, or nullopt if it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
Result<Config, std::string> LoadConfig(const ConfigFiles& files, const EnvLookup& env);

}  // namespace ikigai::config
