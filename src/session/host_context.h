// What every host command needs: the configuration, the tool registry, the
// permission mode and the sandbox the tools run in.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "discovery/discovery.h"
#include "mcpclient/server_manager.h"
#include "permissions/policy.h"
#include "registry/registry.h"
#include "sandbox/sandbox.h"
#include "session/trust.h"
#include "skills/skill_session.h"

namespace ikigai::session {

struct HostOptions {
  std::string permissions;  // --permissions; empty: the configuration's mode
  // The agent's front ends confine tool calls by the mode
  // (session/tool_sandbox.h); `ikigai tool` commands only with --sandbox.
  // Discovery's --schema runs confined in every case but the unrestricted
  // mode: it is never the user's own action.
  enum class Confine { kByMode, kNever, kAlways } confine = Confine::kByMode;
};

struct HostContext {
  config::Config config;
  discovery::Directories directories;
  std::shared_ptr<const registry::Registry> registry;
  TrustState trust;
  permissions::Mode mode = permissions::Mode::kAsk;
  std::shared_ptr<sandbox::Sandbox> sandbox = nullptr;  // null: tools run unconfined
  // --schema runs under it (read-only, no network) unless the mode is
  // unrestricted; it is `sandbox` where calls are confined too.
  std::shared_ptr<sandbox::Sandbox> schema_sandbox = nullptr;
  std::string sandbox_notice = {};  // to say once at the start, if not empty
  // The MCP servers (session/mcp_tools.h), started with the host; null: none.
  std::shared_ptr<mcpclient::ServerManager> mcp = nullptr;
  std::string mcp_notice = {};  // servers given up, a line each: to say once
  // The skills (skills/skill_session.h): found with the configuration (the
  // project's only when trusted), loaded by the `skill` tool. Never null
  // after LoadHostConfig.
  std::shared_ptr<skills::SkillSession> skills = nullptr;
};

// Loads the configuration (errors name the file and key), decides the mode
// and builds the sandbox, and discovers the tools. Untrusted, the project's
// config and tools are left out. `auto` without Landlock is an error that
// says what to use instead.
Result<HostContext, std::string> LoadHostContext(const TrustState& trust,
                                                 const HostOptions& options);

// The MCP servers start in the background here, under the sandbox (when
// calls are confined); LoadHostContext waits for them and adds their tools.
//
// The same with an empty registry: for the REPL, which discovers the tools
// in the background.
Result<HostContext, std::string> LoadHostConfig(const TrustState& trust,
                                                const HostOptions& options);

// Where skills are found: the project's directories only when trusted.
skills::SkillDirectories SkillDirectoriesFor(const TrustState& trust);

// How discovery is configured: the schema timeout, and the sandbox unless
// the mode is unrestricted.
discovery::DiscoveryOptions DiscoveryOptionsFor(const HostContext& host);

// The executor for the host's tools: limits and environment from the
// configuration, each call confined by the host's sandbox under the mode
// that `mode` reads at the call.
// Tools asking for the host channel get `host_api` (null: no channel).
executor::Executor ExecutorFor(const HostContext& host, std::function<permissions::Mode()> mode,
                               std::shared_ptr<hostapi::Methods> host_api = nullptr);

// In a subagent (subagents/subagent.h), the registry without the tools
// that ask for the host channel: a subagent starts no subagents.
std::shared_ptr<const registry::Registry> WithoutHostChannelToolsInSubagents(
    std::shared_ptr<const registry::Registry> registry);

// How a tool's path is shown: relative to the working directory when under
// it, "~/..." when under the home directory, else absolute.
std::string DisplayPath(const std::string& path);

}  // namespace ikigai::session
