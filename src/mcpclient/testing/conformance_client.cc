// A minimal MCP client over HttpTransport, for the conformance suite's
// client scenarios (initialize, tools_call, sse-retry): the suite runs
// `conformance_client <server-url>` and judges what reaches its server.
// It initializes, lists the tools and calls the first one (add_numbers gets
// a and b), then closes. The real client replaces it once it exists.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "mcpclient/http_transport.h"

namespace {

using ikigai::mcpclient::HttpTransport;
using nlohmann::json;

class Client {
 public:
  explicit Client(HttpTransport& transport) : transport_(transport) {}

  ikigai::mcpclient::TransportEvents Events() {
    return {[this](json m) { OnMessage(std::move(m)); },
            [this](std::string why) {
              std::lock_guard lock(mutex_);
              closed_ = why;
              changed_.notify_all();
            }};
  }

  // Sends a request and waits for its response (or gives up after 25 s).
  json Call(const std::string& method, json params) {
    const int id = ++last_id_;
    json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
    if (auto sent = transport_.Send(request); !sent) return Failure(sent.error());
    std::unique_lock lock(mutex_);
    json answer;
    changed_.wait_for(lock, std::chrono::seconds(25), [&] {
      for (const json& m : responses_) {
        if (m["id"] == id) {
          answer = m;
          return true;
        }
      }
      return !closed_.empty();
    });
    if (answer.is_null()) return Failure(closed_.empty() ? "no answer to " + method : closed_);
    return answer;
  }

  void Notify(const std::string& method) {
    (void)transport_.Send(json{{"jsonrpc", "2.0"}, {"method", method}});
  }

 private:
  static json Failure(const std::string& why) {
    return json{{"error", {{"code", -1}, {"message", why}}}};
  }

  void OnMessage(json m) {
    if (m.contains("method") && m.contains("id")) {  // a request of the server's
      json answer = {{"jsonrpc", "2.0"}, {"id", m["id"]}};
      if (m["method"] == "ping") {
        answer["result"] = json::object();
      } else {
        answer["error"] = {{"code", -32601}, {"message", "method not found"}};
      }
      (void)transport_.Send(answer);
      return;
    }
    if (!m.contains("id")) return;  // a notification
    std::lock_guard lock(mutex_);
    responses_.push_back(std::move(m));
    changed_.notify_all();
  }

  HttpTransport& transport_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<json> responses_;
  std::string closed_;
  int last_id_ = 0;
};

int Fail(const std::string& what, const json& answer) {
  std::fprintf(stderr, "conformance_client: %s: %s\n", what.c_str(), answer.dump().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: conformance_client SERVER_URL\n", stderr);
    return 2;
  }
  HttpTransport transport(argv[argc - 1], {}, std::nullopt);
  Client client(transport);
  if (auto started = transport.Start(client.Events()); !started) {
    std::fprintf(stderr, "conformance_client: %s\n", started.error().c_str());
    return 1;
  }
  const json initialized =
      client.Call("initialize", {{"protocolVersion", "2025-11-25"},
                                 {"capabilities", json::object()},
                                 {"clientInfo", {{"name", "ikigai"}, {"version", "0.1.0"}}}});
  if (!initialized.contains("result")) return Fail("initialize", initialized);
  client.Notify("notifications/initialized");
  const json listed = client.Call("tools/list", json::object());
  if (!listed.contains("result") || !listed["result"].is_object())
    return Fail("tools/list", listed);
  const json tools = listed["result"].value("tools", json::array());
  if (tools.is_array() && !tools.empty()) {
    const std::string name = tools[0].is_object() ? tools[0].value("name", "") : "";
    json arguments = json::object();
    if (name == "add_numbers") arguments = {{"a", 2}, {"b", 3}};
    const json called = client.Call("tools/call", {{"name", name}, {"arguments", arguments}});
    if (!called.contains("result")) return Fail("tools/call " + name, called);
    std::printf("%s\n", called["result"].dump().c_str());
  }
  transport.Close();
  return 0;
}
