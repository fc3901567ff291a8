// MCP over stdio: newline-delimited JSON-RPC messages on `in`, answers and
// notifications on `out`, one per line, nothing else (logs go to stderr).
// Returns at end of input, after stopping the calls still running (their
// process groups are killed).
#pragma once

#include "mcpserver/dispatcher.h"
#include "mcpserver/sessions.h"

namespace ikigai::mcpserver {

void ServeStdio(ToolHost& tools, const ServerInfo& info, Sessions& sessions, int in_fd, int out_fd);

}  // namespace ikigai::mcpserver
