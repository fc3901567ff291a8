// The MCP servers the configuration names (DECISIONS §10): `mcp_servers.NAME`
// with Codex's field names, and a trusted project's `.mcp.json` in Claude
// Code's format.
//
// A server is either stdio ({command, args, env, env_vars, cwd}) or
// Streamable HTTP ({url, headers, bearer_token_env_var}); `${VAR}` and
// `${VAR:-default}` expand in command, args, env, cwd, url and headers when
// the file is read. Every error names the file, the server and the field.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace ikigai::config {

struct McpServerConfig {
  std::string name;
  std::string source;  // the file it came from, for messages
  // stdio
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // set for the server
  std::vector<std::string> env_vars;       // the host's variables passed on by name
  std::string cwd;                         // empty: the session's
  // Streamable HTTP
  std::string url;
  std::map<std::string, std::string> headers;
  std::string bearer_token_env_var;  // its value is sent as "Authorization: Bearer ..."
  bool enabled = true;
  bool required = false;                                  // a session does not start without it
  std::optional<std::vector<std::string>> enabled_tools;  // nullopt: all
  std::vector<std::string> disabled_tools;
  std::chrono::milliseconds startup_timeout{30000};
  std::chrono::milliseconds tool_timeout{120000};
  std::size_t output_limit = 0;  // bytes; 0: the tools' output limit
  // The server's own widening of the sandbox (npx and uvx fetch packages and
  // keep a cache on first start).
  bool sandbox_network = false;
  std::vector<std::string> sandbox_writable;

  bool is_http() const { return !url.empty(); }
};

// An environment variable's value, or nullopt if it is not set.
using VariableLookup = std::function<std::optional<std::string>(const std::string& name)>;

// `${VAR}` and `${VAR:-default}`; an unset variable without a default is an
// error naming it. `$` alone or `$NAME` is left as is.
Result<std::string, std::string> ExpandVariables(const std::string& text,
                                                 const VariableLookup& env);

// Why `name` cannot name a server ("" if it can): empty, or holding "__"
// (which separates the parts of mcp__SERVER__TOOL).
std::string CheckServerName(const std::string& name);

// One `mcp_servers.NAME` entry. Errors: "mcp_servers.NAME.FIELD: ..." (the
// caller puts the file in front).
Result<McpServerConfig, std::string> ParseMcpServer(const std::string& name,
                                                    const nlohmann::json& value,
                                                    const std::string& source,
                                                    const VariableLookup& env);

// A `.mcp.json` file's servers ({"mcpServers": {NAME: {command, args, env} |
// {type: "http", url, headers}}}). The file is Claude Code's and may name
// what ikigai cannot use (an "sse" server): such a server is left out with a
// line naming the file and the field; a file that is not JSON is an error.
struct McpJsonServers {
  std::vector<McpServerConfig> servers;
  std::vector<std::string> left_out;  // one line each
};
Result<McpJsonServers, std::string> ParseMcpJson(const std::string& text, const std::string& source,
                                                 const VariableLookup& env);

}  // namespace ikigai::config
