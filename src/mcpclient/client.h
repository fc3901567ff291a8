// An MCP client over any Transport (DECISIONS §10): the lifecycle
// (initialize, notifications/initialized), tools/list with pagination,
// tools/call with a deadline and cancellation, and what a server may send
// on its own (ping answered, notifications/tools/list_changed passed on,
// any other request answered "method not found").
//
// Each request waits on an eventfd of its own, so a caller can wait for its
// answer and a cancel descriptor at once; the transport's thread delivers
// answers by id. A request given up (deadline, cancel) is followed by
// notifications/cancelled so that the server can stop its work.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "mcpclient/transport.h"

namespace ikigai::mcpclient {

inline constexpr const char* kProtocolVersion = "2025-11-25";

// Whether the client accepts a server answering initialize with `version`.
bool IsKnownProtocolVersion(const std::string& version);

struct RemoteTool {
  std::string name;
  std::string description;
  nlohmann::json input_schema;  // an object
  nlohmann::json annotations;   // null if absent; untrusted hints
};

enum class Failure {
  kTimeout,    // no answer in time; cancelled on the server
  kCancelled,  // the caller's cancel descriptor; cancelled on the server
  kClosed,     // the connection is gone (the server died)
  kError,      // a JSON-RPC error, or an answer that makes no sense
};

struct RequestError {
  Failure kind = Failure::kError;
  std::string message;  // one line
  int code = 0;         // the JSON-RPC error code, for kError
};

class Client {
 public:
  explicit Client(std::unique_ptr<Transport> transport);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Starts the transport and initializes; errors are one line.
  Result<bool, std::string> Connect(std::chrono::milliseconds timeout);
  // Every page of tools/list.
  Result<std::vector<RemoteTool>, std::string> ListTools(std::chrono::milliseconds timeout);
  // The result object of tools/call (content, isError, structuredContent).
  Result<nlohmann::json, RequestError> CallTool(const std::string& name,
                                                const nlohmann::json& arguments,
                                                std::chrono::milliseconds timeout,
                                                int cancel_fd = -1);
  // Any request: its result. A readable `cancel_fd` gives it up.
  Result<nlohmann::json, RequestError> Request(const std::string& method, nlohmann::json params,
                                               std::chrono::milliseconds timeout,
                                               int cancel_fd = -1);
  Result<bool, std::string> Notify(const std::string& method, nlohmann::json params);

  // Called on the transport's thread when the server says its tools changed
  // (the callee must not make requests there: it would wait for itself).
  void OnToolsChanged(std::function<void()> callback);

  bool closed() const { return closed_; }
  std::string closed_why() const;
  const nlohmann::json& server_info() const { return server_info_; }
  const std::string& protocol_version() const { return protocol_version_; }
  Transport& transport() { return *transport_; }

  // Closes the transport; pending requests end with kClosed.
  void Close();

 private:
  struct Pending;
  void HandleMessage(nlohmann::json message);
  void HandleClosed(std::string why);

  std::unique_ptr<Transport> transport_;
  mutable std::mutex mutex_;
  std::map<std::int64_t, std::shared_ptr<Pending>> pending_;
  std::int64_t next_id_ = 1;
  std::atomic<bool> closed_ = false;
  std::string closed_why_;
  std::function<void()> tools_changed_;
  nlohmann::json server_info_;
  std::string protocol_version_;
};

}  // namespace ikigai::mcpclient
