#include "session/mcp_tools.h"

#include <unistd.h>

#include <cstdlib>
#include <set>

#include "base/bounded_file.h"

namespace ikigai::session {

Result<std::vector<config::McpServerConfig>, std::string> McpServersFor(
    const config::Config& config, const std::string& mcp_json, std::vector<std::string>& notices) {
  std::vector<config::McpServerConfig> servers;
  std::set<std::string> named;
  for (const auto& [name, server] : config.mcp_servers) {
    servers.push_back(server);
    named.insert(name);
  }
  if (mcp_json.empty()) return servers;
  const std::string root = mcp_json.substr(0, mcp_json.rfind('/'));
  auto file = ReadBoundedFile(mcp_json, {.max_bytes = 1024 * 1024, .confine_to = root});
  if (!file) return Err(std::move(file.error()));
  if (!file->exists) return servers;
  if (file->truncated) return Err(mcp_json + ": larger than 1 MB");
  auto imported = config::ParseMcpJson(file->text, mcp_json,
                                       [](const std::string& name) -> std::optional<std::string> {
                                         const char* value = std::getenv(name.c_str());
                                         if (value == nullptr) return std::nullopt;
                                         return std::string(value);
                                       });
  if (!imported) return Err(std::move(imported.error()));
  for (std::string& line : imported->left_out) notices.push_back(std::move(line));
  for (config::McpServerConfig& server : imported->servers) {
    if (!named.contains(server.name)) servers.push_back(std::move(server));
  }
  return servers;
}

std::shared_ptr<mcpclient::ServerManager> StartMcpServers(
    std::vector<config::McpServerConfig> servers, const config::Config& config,
    std::shared_ptr<sandbox::Sandbox> sandbox) {
  if (servers.empty()) return nullptr;
  mcpclient::ManagerOptions options;
  options.sandbox = std::move(sandbox);
  options.output_limit = config.tools.defaults.output_limit;
  auto manager = std::make_shared<mcpclient::ServerManager>(std::move(servers), options);
  if (manager->empty()) return nullptr;
  manager->StartAll();
  return manager;
}

Result<std::shared_ptr<const registry::Registry>, std::string> WithMcpTools(
    std::shared_ptr<const registry::Registry> registry, mcpclient::ServerManager* manager,
    std::vector<std::string>& notices, int cancel_fd) {
  if (manager == nullptr) return registry;
  for (std::string& line : manager->WaitStarted(cancel_fd)) notices.push_back(std::move(line));
  if (std::string failure = manager->RequiredFailure(); !failure.empty()) {
    return Err(std::move(failure));
  }
  std::vector<registry::Tool> tools = registry->tools();
  for (registry::Tool& tool : manager->Tools()) {
    if (registry->Find(tool.name) == nullptr) tools.push_back(std::move(tool));
  }
  return std::make_shared<const registry::Registry>(std::move(tools), registry->failures());
}

std::shared_ptr<const registry::Registry> WithCurrentMcpTools(
    const registry::Registry& registry, const mcpclient::ServerManager& manager) {
  std::vector<registry::Tool> tools;
  for (const registry::Tool& tool : registry.tools()) {
    if (tool.source != registry::Source::kMcp) tools.push_back(tool);
  }
  const registry::Registry others(tools, {});
  for (registry::Tool& tool : manager.Tools()) {
    if (others.Find(tool.name) == nullptr) tools.push_back(std::move(tool));
  }
  return std::make_shared<const registry::Registry>(std::move(tools), registry.failures());
}

std::string McpStatusText(const mcpclient::ServerManager* manager) {
  if (manager == nullptr) {
    return "No MCP servers are configured (mcp_servers in ~/.ikigai/config.json, or a trusted "
           "project's .mcp.json; see docs/configuration.md).";
  }
  std::string text;
  for (const mcpclient::ServerStatus& status : manager->Status()) {
    text += status.name + "  " + std::string(mcpclient::StateName(status.state)) + "  " +
            status.target + "\n";
    if (status.state == mcpclient::ServerState::kFailed) text += "  why: " + status.why + "\n";
    for (const std::string& tool : status.tools) text += "  " + tool + "\n";
    if (status.state == mcpclient::ServerState::kReady && status.tools.empty())
      text += "  (no tools)\n";
  }
  if (!text.empty()) text.pop_back();
  return text;
}

}  // namespace ikigai::session
