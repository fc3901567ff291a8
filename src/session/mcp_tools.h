// A session's MCP servers (mcpclient/server_manager.h) in the host: which
// servers (the configuration's mcp_servers, and a trusted project's
// .mcp.json), started in the background with the session, their tools added
// to the registry once the first request needs them, and /mcp's report.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "mcpclient/server_manager.h"
#include "registry/registry.h"
#include "sandbox/sandbox.h"

namespace ikigai::session {

// The servers to start: the configuration's, then those of `mcp_json` (the
// project's .mcp.json, read only when the folder is trusted; "" for none)
// that the configuration does not name. Errors name the file and the field;
// a server of .mcp.json that ikigai cannot use is a line in `notices`.
Result<std::vector<config::McpServerConfig>, std::string> McpServersFor(
    const config::Config& config, const std::string& mcp_json, std::vector<std::string>& notices);

// Starts the servers (none: null). Stdio servers run under `sandbox`
// (null: unconfined).
std::shared_ptr<mcpclient::ServerManager> StartMcpServers(
    std::vector<config::McpServerConfig> servers, const config::Config& config,
    std::shared_ptr<sandbox::Sandbox> sandbox);

// `registry` with the tools of the servers that are ready, after waiting
// for those still starting. `notices` gets a line for each server given
// up. A required server that failed is an error.
Result<std::shared_ptr<const registry::Registry>, std::string> WithMcpTools(
    std::shared_ptr<const registry::Registry> registry, mcpclient::ServerManager* manager,
    std::vector<std::string>& notices, int cancel_fd = -1);

// `registry` with its MCP tools replaced by the servers' current ones (after
// notifications/tools/list_changed).
std::shared_ptr<const registry::Registry> WithCurrentMcpTools(
    const registry::Registry& registry, const mcpclient::ServerManager& manager);

// /mcp: each server, its state (and why it failed), its tools.
std::string McpStatusText(const mcpclient::ServerManager* manager);

}  // namespace ikigai::session
