// One MCP session's JSON-RPC: what the transports (stdio_server.h,
// http_server.h) hand each message they read to.
//
// Requests: initialize (protocol 2025-11-25, also 2025-06-18 and
// 2025-03-26; anything else is answered with the newest), ping, tools/list,
// tools/call, logging/setLevel; any other method is -32601. Text that is not
// JSON is -32700, JSON that is not a JSON-RPC 2.0 message -32600 (batches
// included: 2025-06-18 removed them). Notifications: initialized,
// cancelled (kills the call's process group; the cancelled request gets no
// answer, as the spec says). Responses from the client are ignored (the
// server sends no requests).
//
// Each tools/call runs on its own thread, so several are in flight at once
// and their answers come in any order, through the `reply` given with the
// request. The tool list comes from the ToolHost, never from the session.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mcpserver/tool_host.h"

namespace ikigai::mcpserver {

inline constexpr std::string_view kLatestProtocolVersion = "2025-11-25";
bool IsSupportedProtocolVersion(std::string_view version);

// JSON-RPC error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;

// {"jsonrpc": "2.0", "id": id, "error": {"code", "message"}}
nlohmann::json ErrorResponse(const nlohmann::json& id, int code, std::string message);

struct ServerInfo {
  std::string name = "ikigai";
  std::string version;
};

class Dispatcher {
 public:
  // Sends one message to the client; called from any thread.
  using Send = std::function<void(const nlohmann::json&)>;

  enum class Kind {
    kRequest,       // `reply` is called once (unless cancelled), maybe later
    kNotification,  // no answer
    kResponse,      // the client answering a request: no answer
    kInvalid,       // `reply` was called with the error before returning
  };

  // `notify` carries the server's own messages (list_changed, logging).
  Dispatcher(ToolHost& tools, ServerInfo info, Send notify);
  // Cancels the calls still running and waits for their threads.
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  Kind Handle(std::string_view text, Send reply);
  // The same for an already parsed message.
  Kind HandleJson(const nlohmann::json& message, Send reply);

  // Server-initiated: the tool list changed.
  void NotifyToolsChanged();
  // A log message (notifications/message), sent if at or above the level
  // the client set with logging/setLevel (default: info).
  void Log(std::string_view level, const nlohmann::json& data);

  // Stops every call in flight (their requests get no answer).
  void CancelAll();

  std::string protocol_version() const;

 private:
  void StartCall(const nlohmann::json& id, const nlohmann::json& params, Send reply);

  struct State;
  std::shared_ptr<State> state_;
};

// The string member `key` of `object`; "" when absent or not a string (a
// client's message may have any shape).
std::string StringMember(const nlohmann::json& object, std::string_view key);

}  // namespace ikigai::mcpserver
