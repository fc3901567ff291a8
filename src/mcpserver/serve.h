// `ikigai mcp serve`: ikigai's tools offered to MCP clients (DECISIONS §10),
// over stdio or, with --http, Streamable HTTP; the tool list follows the
// tool directories (notifications/tools/list_changed).
#pragma once

#include <optional>
#include <string>

#include "session/host_context.h"

namespace ikigai::mcpserver {

struct ServeOptions {
  std::optional<std::string> http;  // --http [HOST:]PORT; none: stdio
  std::string version;              // ikigai's, for serverInfo
};

// Runs until the client goes (stdio: end of input) or a signal (HTTP).
// Returns the exit status; problems go to stderr, never stdout.
int RunServe(const session::HostContext& host, const ServeOptions& options);

}  // namespace ikigai::mcpserver
