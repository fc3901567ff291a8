#include "hostapi/host_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <system_error>

namespace ikigai::hostapi {
namespace {

nlohmann::json ErrorMessage(const nlohmann::json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

}  // namespace

Result<std::unique_ptr<HostChannel>, std::string> HostChannel::Open(
    std::shared_ptr<Methods> methods, std::string tool) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return Err(std::string("host channel: socketpair: ") + std::strerror(errno));
  }
  return std::unique_ptr<HostChannel>(
      new HostChannel(std::move(methods), std::move(tool), pair[0], pair[1]));
}

HostChannel::HostChannel(std::shared_ptr<Methods> methods, std::string tool, int host_end,
                         int tool_end)
    : methods_(std::move(methods)),
      tool_(std::move(tool)),
      host_end_(host_end),
      tool_end_(tool_end) {
  int cancel[2];
  // A pipe cannot fail here short of running out of descriptors; the
  // channel then simply has no cancellation to give (-1 never reads).
  if (::pipe2(cancel, O_CLOEXEC) == 0) {
    cancel_read_.Reset(cancel[0]);
    cancel_write_.Reset(cancel[1]);
  }
  reader_ = std::thread([this] { Serve(); });
}

HostChannel::~HostChannel() {
  ::shutdown(host_end_.get(), SHUT_RDWR);  // wakes the reader, fails pending writes
  reader_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mutex_);
    workers.swap(workers_);
  }
  for (auto& worker : workers) worker.join();
}

void HostChannel::Serve() {
  std::string buffer;
  char chunk[16384];
  for (;;) {
    const ssize_t n = ::read(host_end_.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1) {
      Handle(buffer.substr(start, end - start));
    }
    buffer.erase(0, start);
    if (buffer.size() > kMaxLineBytes) {
      Send(ErrorMessage(nullptr, rpc_code::kInvalidRequest,
                        "message longer than " + std::to_string(kMaxLineBytes) +
                            " bytes: the channel is closed"));
      break;
    }
  }
  // The tool is gone (or the call is over): what still runs is cancelled.
  cancel_write_.Reset();
  ::shutdown(host_end_.get(), SHUT_RD);
}

void HostChannel::Handle(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
  if (message.is_discarded()) {
    Send(ErrorMessage(nullptr, rpc_code::kParseError, "not JSON: send one JSON object per line"));
    return;
  }
  if (message.is_object() && !message.contains("id")) {
    // A notification gets no answer, as JSON-RPC says, not even an error.
    // Only `progress` is one: it is served here, on the reader, so it must
    // not block (a question or a subagent would, beyond cancellation).
    if (message.value("method", nlohmann::json()) == "progress") {
      (void)methods_->Call(message["method"].get<std::string>(),
                           message.value("params", nlohmann::json::object()),
                           CallContext{cancel_read_.get(), tool_});
    }
    return;
  }
  if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
    Send(ErrorMessage(message.is_object() ? message.value("id", nlohmann::json()) : nullptr,
                      rpc_code::kInvalidRequest,
                      "a request needs \"jsonrpc\": \"2.0\", an \"id\" and a \"method\""));
    return;
  }
  nlohmann::json id = message["id"];
  nlohmann::json params = message.value("params", nlohmann::json::object());
  std::string method = message["method"].get<std::string>();
  std::unique_lock lock(mutex_);
  if (pending_ >= kMaxPendingRequests) {
    lock.unlock();
    Send(ErrorMessage(id, rpc_code::kBusy,
                      "too many requests at once (at most " + std::to_string(kMaxPendingRequests) +
                          "): wait for an answer first"));
    return;
  }
  // Workers that have answered are joined here, so that a long call with
  // many requests does not keep a thread for each.
  for (const std::thread::id ended : ended_) {
    auto it = std::find_if(workers_.begin(), workers_.end(),
                           [ended](const std::thread& t) { return t.get_id() == ended; });
    if (it != workers_.end()) {
      it->join();  // it has nothing left to do but return
      workers_.erase(it);
    }
  }
  ended_.clear();
  try {
    workers_.emplace_back([this, id, method = std::move(method), params = std::move(params)] {
      MethodResult result = methods_->Call(method, params, CallContext{cancel_read_.get(), tool_});
      Send(result ? nlohmann::json{{"jsonrpc", "2.0"}, {"id", id}, {"result", *result}}
                  : ErrorMessage(id, result.error().code, result.error().message));
      std::lock_guard done(mutex_);
      --pending_;
      ended_.push_back(std::this_thread::get_id());
    });
    ++pending_;
  } catch (const std::system_error&) {
    lock.unlock();
    Send(ErrorMessage(id, rpc_code::kBusy,
                      "the host cannot start another thread now: try again in a moment"));
  }
}

void HostChannel::Send(const nlohmann::json& message) {
  const std::string text =
      message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(write_mutex_);
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = ::send(host_end_.get(), text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the tool is gone: nobody to answer
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace ikigai::hostapi
