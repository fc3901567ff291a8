// MCP over Streamable HTTP at /mcp (protocol 2025-11-25).
//
//   POST   one JSON-RPC message. An initialize request opens a session
//          (its id in Mcp-Session-Id); anything else needs that header
//          (absent: 400; unknown or ended: 404). A request is answered as
//          application/json when the client accepts it (nothing is sent
//          before an answer: no progress), else as a one-event
//          text/event-stream; a notification or response is 202, no body.
//   GET    an SSE stream of the session's server-initiated messages
//          (notifications/tools/list_changed, notifications/message).
//   DELETE ends the session (its calls are cancelled).
// Origin and Host are checked against DNS rebinding (origin.h): 403, sent
// only after the body was read, so the client sees the answer and not a
// reset. MCP-Protocol-Version, when sent, must be one the server speaks
// (400). TCP_NODELAY on every connection.
#pragma once

#include <string>

#include "base/result.h"
#include "mcpserver/dispatcher.h"
#include "mcpserver/sessions.h"

namespace ikigai::mcpserver {

struct HttpAddress {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
};

// "[HOST:]PORT" ("8080", "127.0.0.1:8080", "[::1]:8080", "0" for any port).
Result<HttpAddress, std::string> ParseHttpAddress(std::string_view text);

// Serves until SIGINT or SIGTERM (blocked in the calling thread, which must
// not have started other threads yet... or have them blocked too). Writes
// "ikigai: MCP server listening on http://HOST:PORT/mcp" to stderr once
// listening. Returns the exit status.
int ServeHttp(ToolHost& tools, const ServerInfo& info, Sessions& sessions,
              const HttpAddress& address);

}  // namespace ikigai::mcpserver
