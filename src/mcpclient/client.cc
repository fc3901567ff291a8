#include "mcpclient/client.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"

namespace ikigai::mcpclient {

using json = nlohmann::json;

struct Client::Pending {
  UniqueFd ready{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  std::optional<json> answer;  // under the client's mutex
  bool closed = false;

  void Signal() {
    const std::uint64_t one = 1;
    (void)!::write(ready.get(), &one, sizeof one);
  }
};

bool IsKnownProtocolVersion(const std::string& version) {
  return version == "2025-11-25" || version == "2025-06-18" || version == "2025-03-26" ||
         version == "2024-11-05";
}

Client::Client(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {}

Client::~Client() { Close(); }

void Client::Close() {
  transport_->Close();
  HandleClosed("the connection was closed");
}

std::string Client::closed_why() const {
  std::lock_guard lock(mutex_);
  return closed_why_;
}

void Client::OnToolsChanged(std::function<void()> callback) {
  std::lock_guard lock(mutex_);
  tools_changed_ = std::move(callback);
}

void Client::HandleClosed(std::string why) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  closed_ = true;
  closed_why_ = std::move(why);
  for (auto& [id, pending] : pending_) {
    pending->closed = true;
    pending->Signal();
  }
}

void Client::HandleMessage(json message) {
  auto method = message.find("method");
  auto id = message.find("id");
  if (method == message.end()) {
    // A response: to one of ours, by id.
    if (id == message.end() || !id->is_number_integer()) return;
    std::lock_guard lock(mutex_);
    auto it = pending_.find(id->get<std::int64_t>());
    if (it == pending_.end()) return;  // given up already
    it->second->answer = std::move(message);
    it->second->Signal();
    return;
  }
  const std::string name = method->is_string() ? method->get<std::string>() : "";
  if (id == message.end()) {  // a notification
    if (name == "notifications/tools/list_changed") {
      std::function<void()> callback;
      {
        std::lock_guard lock(mutex_);
        callback = tools_changed_;
      }
      if (callback) callback();
    }
    return;
  }
  // A request from the server: only ping is ours to answer.
  json reply = {{"jsonrpc", "2.0"}, {"id", *id}};
  if (name == "ping") {
    reply["result"] = json::object();
  } else {
    reply["error"] = {{"code", -32601}, {"message", "Method not found: " + name}};
  }
  (void)transport_->Send(reply);
}

Result<bool, std::string> Client::Notify(const std::string& method, json params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return transport_->Send(message);
}

Result<json, RequestError> Client::Request(const std::string& method, json params,
                                           std::chrono::milliseconds timeout, int cancel_fd) {
  auto pending = std::make_shared<Pending>();
  std::int64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return Err(RequestError{Failure::kClosed, closed_why_});
    id = next_id_++;
    pending_[id] = pending;
  }
  auto forget = [&] {
    std::lock_guard lock(mutex_);
    pending_.erase(id);
  };
  json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  if (auto sent = transport_->Send(message); !sent) {
    forget();
    if (closed_) return Err(RequestError{Failure::kClosed, closed_why()});
    return Err(RequestError{Failure::kClosed, sent.error()});
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    pollfd fds[2] = {{pending->ready.get(), POLLIN, 0}, {cancel_fd, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const int ready =
        ::poll(fds, cancel_fd >= 0 ? 2 : 1, static_cast<int>(std::max<long>(0, left.count() + 1)));
    if (ready < 0 && errno == EINTR) continue;
    if (fds[0].revents != 0) break;
    const bool cancelled = cancel_fd >= 0 && fds[1].revents != 0;
    if (cancelled || std::chrono::steady_clock::now() >= deadline) {
      forget();
      if (method != "initialize") {  // which the protocol forbids cancelling
        (void)Notify(
            "notifications/cancelled",
            {{"requestId", id}, {"reason", cancelled ? "cancelled by the user" : "timed out"}});
      }
      if (cancelled) return Err(RequestError{Failure::kCancelled, method + " was cancelled"});
      return Err(RequestError{Failure::kTimeout, method + " got no answer in time"});
    }
  }
  std::lock_guard lock(mutex_);
  pending_.erase(id);
  if (!pending->answer) return Err(RequestError{Failure::kClosed, closed_why_});
  json& answer = *pending->answer;
  if (auto error = answer.find("error"); error != answer.end()) {
    RequestError failure{Failure::kError, "the server answered with an error", 0};
    if (error->is_object()) {
      if (auto code = error->find("code"); code != error->end() && code->is_number_integer())
        failure.code = code->get<int>();
      if (auto text = error->find("message"); text != error->end() && text->is_string())
        failure.message = text->get<std::string>();
    }
    return Err(std::move(failure));
  }
  auto result = answer.find("result");
  if (result == answer.end() || !result->is_object()) {
    return Err(RequestError{Failure::kError, "the server's answer to " + method +
                                                 " has no result object: " + answer.dump()});
  }
  return std::move(*result);
}

Result<bool, std::string> Client::Connect(std::chrono::milliseconds timeout) {
  auto started = transport_->Start({[this](json message) { HandleMessage(std::move(message)); },
                                    [this](std::string why) { HandleClosed(std::move(why)); }});
  if (!started) return Err(std::move(started.error()));
  json params = {{"protocolVersion", kProtocolVersion},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "ikigai"}, {"version", "1"}}}};
  auto result = Request("initialize", std::move(params), timeout);
  if (!result) {
    const RequestError& e = result.error();
    if (e.kind == Failure::kTimeout) {
      return Err("no answer to initialize within " + std::to_string(timeout.count()) + " ms");
    }
    return Err("initialize failed: " + e.message);
  }
  auto version = result->find("protocolVersion");
  if (version == result->end() || !version->is_string()) {
    return Err("the answer to initialize has no protocolVersion");
  }
  if (!IsKnownProtocolVersion(version->get<std::string>())) {
    return Err("the server speaks MCP " + version->get<std::string>() +
               ", which ikigai does not (it speaks " + kProtocolVersion + " and older)");
  }
  protocol_version_ = version->get<std::string>();
  if (auto info = result->find("serverInfo"); info != result->end()) server_info_ = *info;
  if (auto sent = Notify("notifications/initialized", nullptr); !sent) {
    return Err("cannot send notifications/initialized: " + sent.error());
  }
  return true;
}

Result<std::vector<RemoteTool>, std::string> Client::ListTools(std::chrono::milliseconds timeout) {
  std::vector<RemoteTool> tools;
  json cursor = nullptr;
  constexpr int kMaxPages = 1000;  // a server that pages forever is broken
  for (int page = 0; page < kMaxPages; ++page) {
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    auto result = Request("tools/list", std::move(params), timeout);
    if (!result) return Err("tools/list failed: " + result.error().message);
    auto list = result->find("tools");
    if (list == result->end() || !list->is_array()) {
      return Err(std::string("the answer to tools/list has no \"tools\" list"));
    }
    for (const json& entry : *list) {
      if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) continue;
      RemoteTool tool;
      tool.name = entry["name"].get<std::string>();
      if (auto d = entry.find("description"); d != entry.end() && d->is_string())
        tool.description = d->get<std::string>();
      tool.input_schema = entry.value("inputSchema", json::object());
      if (!tool.input_schema.is_object()) tool.input_schema = json::object();
      if (auto a = entry.find("annotations"); a != entry.end() && a->is_object())
        tool.annotations = *a;
      tools.push_back(std::move(tool));
    }
    auto next = result->find("nextCursor");
    if (next == result->end() || !next->is_string() || next->get<std::string>().empty())
      return tools;
    cursor = *next;
  }
  return Err(std::string("tools/list went on for more than 1000 pages"));
}

Result<json, RequestError> Client::CallTool(const std::string& name, const json& arguments,
                                            std::chrono::milliseconds timeout, int cancel_fd) {
  return Request("tools/call", {{"name", name}, {"arguments", arguments}}, timeout, cancel_fd);
}

}  // namespace ikigai::mcpclient
