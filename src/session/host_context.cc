#include "session/host_context.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "discovery/schema_cache.h"
#include "session/mcp_tools.h"
#include "session/tool_sandbox.h"
#include "subagents/subagent.h"

namespace ikigai::session {

Result<HostContext, std::string> LoadHostConfig(const TrustState& trust,
                                                const HostOptions& options) {
  config::ConfigFiles files = config::DefaultConfigFiles();
  discovery::Directories directories = discovery::DefaultDirectories();
  if (!trust.trusted) {
    files.project.clear();
    directories.project.clear();
  }
  auto config = config::LoadConfig(files);
  if (!config) return Err(std::move(config.error()));
  HostContext host{std::move(*config), std::move(directories),
                   std::make_shared<const registry::Registry>(), trust};
  const std::string& name =
      options.permissions.empty() ? host.config.permissions.mode : options.permissions;
  const auto mode = permissions::ParseMode(name);
  if (!mode) {
    return Err("--permissions " + name + ": must be one of " +
               std::string(permissions::kModeNames));
  }
  host.mode = *mode;
  auto sandbox = MakeSandbox(host.config);
  if (!sandbox) return Err(std::move(sandbox.error()));
  host.schema_sandbox = std::move(*sandbox);
  // Project-level servers (the project's config, .mcp.json) only when trusted.
  char cwd[4096];
  const std::string mcp_json = trust.trusted && ::getcwd(cwd, sizeof cwd) != nullptr
                                   ? std::string(cwd) + "/.mcp.json"
                                   : std::string();
  std::vector<std::string> left_out;
  auto servers = McpServersFor(host.config, mcp_json, left_out);
  if (!servers) return Err(std::move(servers.error()));
  for (const std::string& line : left_out) host.mcp_notice += line + "\n";
  if (options.confine != HostOptions::Confine::kNever) {
    host.sandbox = host.schema_sandbox;
    if (options.confine == HostOptions::Confine::kAlways) {
      // `ikigai tool call --sandbox`: confined whatever the configured mode.
      host.sandbox_notice = SandboxNotice(*host.sandbox, permissions::Mode::kAuto);
    } else {
      if (std::string refusal = ModeRefusal(*host.sandbox, host.mode); !refusal.empty()) {
        return Err(std::move(refusal));
      }
      host.sandbox_notice = SandboxNotice(*host.sandbox, host.mode);
    }
  }
  // Servers run unconfined only where tools do (unrestricted, or `ikigai
  // tool` without --sandbox).
  host.mcp =
      StartMcpServers(std::move(*servers), host.config,
                      host.mode == permissions::Mode::kUnrestricted ? nullptr : host.sandbox);
  host.skills = std::make_shared<skills::SkillSession>(
      skills::DiscoverSkills(SkillDirectoriesFor(trust)), DiscoveryOptionsFor(host));
  return host;
}

skills::SkillDirectories SkillDirectoriesFor(const TrustState& trust) {
  skills::SkillDirectories dirs = skills::DefaultSkillDirectories();
  if (!trust.trusted) dirs.project.clear();
  return dirs;
}

discovery::DiscoveryOptions DiscoveryOptionsFor(const HostContext& host) {
  discovery::DiscoveryOptions options;
  options.schema_timeout = host.config.schema_timeout;
  options.cache_path = discovery::DefaultSchemaCachePath();
  if (host.mode != permissions::Mode::kUnrestricted) options.sandbox = host.schema_sandbox;
  return options;
}

executor::Executor ExecutorFor(const HostContext& host, std::function<permissions::Mode()> mode,
                               std::shared_ptr<hostapi::Methods> host_api) {
  // A read-only bash command (git status, ls) runs beside other readers.
  auto is_read_only = [](const registry::Tool& tool, const executor::Call& call) {
    return permissions::IsReadOnlyCall(CallFactsFor(tool, call.arguments));
  };
  executor::ExecutorOptions options = host.config.tools;
  options.remote_tools = host.mcp;
  options.host_tools = host.skills;
  return executor::Executor(options, host.sandbox, ChooserFor(std::move(mode)),
                            std::move(is_read_only), std::move(host_api));
}

std::shared_ptr<const registry::Registry> WithoutHostChannelToolsInSubagents(
    std::shared_ptr<const registry::Registry> registry) {
  if (!subagents::IsSubagent()) return registry;
  std::vector<registry::Tool> tools;
  for (const registry::Tool& tool : registry->tools()) {
    if (!executor::WantsHostChannel(tool)) tools.push_back(tool);
  }
  return std::make_shared<const registry::Registry>(std::move(tools), registry->failures());
}

Result<HostContext, std::string> LoadHostContext(const TrustState& trust,
                                                 const HostOptions& options) {
  auto context = LoadHostConfig(trust, options);
  if (!context) return context;
  context->registry = WithoutHostChannelToolsInSubagents(std::make_shared<const registry::Registry>(
      discovery::Discover(context->directories, DiscoveryOptionsFor(*context))));
  std::vector<std::string> notices;
  auto with_mcp = WithMcpTools(context->registry, context->mcp.get(), notices);
  if (!with_mcp) return Err(std::move(with_mcp.error()));
  context->registry = std::move(*with_mcp);
  for (const std::string& line : notices) context->mcp_notice += line + "\n";
  return context;
}

std::string DisplayPath(const std::string& raw) {
  // "build/bin/../libexec/ikigai/x-tool" reads better as "build/libexec/ikigai/x-tool".
  const std::string path = std::filesystem::path(raw).lexically_normal().string();
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) != nullptr) {
    const std::string prefix = std::string(cwd) + "/";
    if (path.starts_with(prefix)) return path.substr(prefix.size());
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    const std::string prefix = std::string(home) + "/";
    if (path.starts_with(prefix)) return "~/" + path.substr(prefix.size());
  }
  return path;
}

}  // namespace ikigai::session
