// The seam between ikigai's MCP client and the wire.
//
// Two transports carry the same JSON-RPC messages: stdio (a server process
// of ours, one JSON message per line) and Streamable HTTP (each message a
// POST answered with JSON or an SSE stream, plus the GET stream for what the
// server sends on its own). The client above only sends messages and is
// handed whatever the server sends; tests replace a transport with a fake.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace ikigai::mcpclient {

struct TransportEvents {
  // A JSON-RPC message from the server: a response, a request or a
  // notification. Called on a thread of the transport's, one at a time.
  std::function<void(nlohmann::json message)> on_message;
  // The connection is gone (the process exited, the stream broke for good);
  // `why` is one line for the user. Called at most once; no message after it.
  std::function<void(std::string why)> on_closed;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Connects: starts the server process, or for HTTP nothing yet. Events flow
  // from here on. An error is one line for the user.
  virtual Result<bool, std::string> Start(TransportEvents events) = 0;
  // Sends one message; safe from any thread. What the server answers comes
  // through on_message (for HTTP, the POST's JSON or SSE body).
  virtual Result<bool, std::string> Send(const nlohmann::json& message) = 0;
  // Stops for good: the process group is killed, an HTTP session deleted,
  // threads joined. Idempotent; no event is delivered after it returns.
  virtual void Close() = 0;
};

}  // namespace ikigai::mcpclient
