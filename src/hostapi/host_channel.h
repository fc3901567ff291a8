// The host channel (DECISIONS §9): how a tool asks the host for what only
// the host can do: start a subagent (tools hold no API keys and have no
// network in the sandbox), ask the user a question, show the user a line
// while it works.
//
// A tool whose schema says "host_api": true gets one end of a Unix socket
// pair as descriptor 3 (IKIGAI_HOST_FD=3 in its environment); the host
// keeps the other end for the length of the call. Both sides write one
// JSON-RPC 2.0 message per line: the tool sends requests
// {"jsonrpc": "2.0", "id": 1, "method": "subagent/start", "params": {...}},
// the host answers each with {"jsonrpc": "2.0", "id": 1, "result": ...} or
// {"jsonrpc": "2.0", "id": 1, "error": {"code", "message"}}. A message
// without an id is a notification: it gets no answer; `progress` is the only
// one served (any other is dropped).
//
// Each request runs on a thread of its own (a long one, a subagent, must
// not hold up a `subagent/stop`); at most kMaxPendingRequests at once.
// When the tool ends (its end closes) or the call is over, the requests
// still running are told through their cancel descriptor, and the channel
// waits for them before it goes.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/unique_fd.h"

namespace ikigai::hostapi {

// JSON-RPC 2.0's codes, and ours.
namespace rpc_code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kBusy = -32000;       // too many requests at once
inline constexpr int kFailed = -32001;     // the operation failed (its message says why)
inline constexpr int kCancelled = -32002;  // the channel closed first
inline constexpr int kNoUser = -32003;     // elicit: nobody can answer (-p, mcp serve)
}  // namespace rpc_code

struct RpcError {
  int code = rpc_code::kFailed;
  std::string message;
};

using MethodResult = Result<nlohmann::json, RpcError>;

// Who asks: the tool the channel was opened for, and `cancel_fd`, which
// becomes readable when the tool's call is over (a long method polls it).
struct CallContext {
  int cancel_fd = -1;
  std::string tool;
};

// What the host offers. Call runs on a request's own thread (a
// notification's on the channel's reader: it must be quick).
class Methods {
 public:
  virtual ~Methods() = default;
  virtual MethodResult Call(const std::string& method, const nlohmann::json& params,
                            const CallContext& context) = 0;
};

// Lines longer than this close the channel: no request is that large.
inline constexpr std::size_t kMaxLineBytes = 1 << 20;
inline constexpr std::size_t kMaxPendingRequests = 8;

class HostChannel {
 public:
  // A socket pair and the thread serving the host's end, for a call of
  // `tool`. Errors say why.
  static Result<std::unique_ptr<HostChannel>, std::string> Open(std::shared_ptr<Methods> methods,
                                                                std::string tool = {});
  // Closes the channel: cancels what still runs and waits for it.
  ~HostChannel();
  HostChannel(const HostChannel&) = delete;
  HostChannel& operator=(const HostChannel&) = delete;

  // The tool's end (close-on-exec; Spawn puts it at descriptor 3).
  int tool_end() const { return tool_end_.get(); }
  // Once the tool runs, the host's copy of its end must go, so that the
  // tool's exit is seen as the end of the channel.
  void CloseToolEnd() { tool_end_.Reset(); }

 private:
  HostChannel(std::shared_ptr<Methods> methods, std::string tool, int host_end, int tool_end);
  void Serve();
  void Handle(const std::string& line);
  void Send(const nlohmann::json& message);

  std::shared_ptr<Methods> methods_;
  std::string tool_;
  UniqueFd host_end_, tool_end_;
  UniqueFd cancel_read_, cancel_write_;  // closing the write end cancels
  std::mutex mutex_;                     // guards workers_, ended_ and pending_
  std::mutex write_mutex_;               // one message at a time
  std::vector<std::thread> workers_;
  std::vector<std::thread::id> ended_;  // of workers_, to be joined
  std::size_t pending_ = 0;
  std::thread reader_;
};

}  // namespace ikigai::hostapi
