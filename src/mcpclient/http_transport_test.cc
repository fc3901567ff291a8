#include "mcpclient/http_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>
#include <gtest/gtest.h>

#include "mcpclient/testing/peer.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ikigai::mcpclient {
namespace {

using nlohmann::json;

using ikigai::testing::FreePort;
using ikigai::testing::Peer;

// What the transport delivered, waited for with a guard against hangs (not
// a timing assertion: 60 s is "never").
class Inbox {
 public:
  TransportEvents Events() {
    return {[this](json m) {
              std::lock_guard lock(mutex_);
              messages_.push_back(std::move(m));
              changed_.notify_all();
            },
            [this](std::string why) {
              std::lock_guard lock(mutex_);
              closed_.push_back(std::move(why));
              changed_.notify_all();
            }};
  }
  // The first message for which `match` holds.
  json Await(const std::function<bool(const json&)>& match) {
    std::unique_lock lock(mutex_);
    json found;
    changed_.wait_for(lock, std::chrono::seconds(60), [&] {
      for (const json& m : messages_) {
        if (match(m)) {
          found = m;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  json AwaitResponse(int id) {
    return Await([id](const json& m) { return m.contains("id") && m["id"] == id; });
  }
  std::string AwaitClosed() {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(60), [&] { return !closed_.empty(); });
    return closed_.empty() ? "" : closed_.front();
  }
  std::vector<json> Messages() {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  std::size_t count() {
    std::lock_guard lock(mutex_);
    return messages_.size();
  }
  std::size_t closed_count() {
    std::lock_guard lock(mutex_);
    return closed_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<json> messages_;
  std::vector<std::string> closed_;
};

json Request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}
json Notification(const std::string& method) { return {{"jsonrpc", "2.0"}, {"method", method}}; }
json Initialize(int id) {
  return Request(id, "initialize",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "ikigai-test"}, {"version", "1"}}}});
}
json CallTool(int id, const std::string& name, json arguments) {
  return Request(id, "tools/call", {{"name", name}, {"arguments", std::move(arguments)}});
}
std::string ErrorMessage(const json& response) {
  if (!response.contains("error")) return "(no error in " + response.dump() + ")";
  return response["error"].value("message", "");
}
std::string FirstText(const json& response) {
  if (!response.contains("result")) return "(no result in " + response.dump() + ")";
  return response["result"]["content"][0].value("text", "");
}

size_t Collect(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

class ScriptedServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start({"python3", IKIGAI_MCP_TEST_SERVER}, {}, "PORT "))
        << server_.output();
    base_ = "http://127.0.0.1:" + server_.found();
  }

  std::string Url(const std::string& mode) const { return base_ + "/" + mode; }

  // Every request the server got, oldest first.
  json Log() const {
    std::string body;
    CURL* easy = curl_easy_init();
    const std::string url = base_ + "/_log";
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Collect);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(easy, CURLOPT_NOPROXY, "*");
    curl_easy_perform(easy);
    curl_easy_cleanup(easy);
    return json::parse(body, nullptr, false);
  }
  std::vector<json> Logged(const std::string& method) const {
    std::vector<json> found;
    for (const json& entry : Log())
      if (entry["method"] == method) found.push_back(entry);
    return found;
  }

  // Starts a transport on `mode` and initializes it.
  std::unique_ptr<HttpTransport> Connect(const std::string& mode, Inbox& inbox,
                                         HttpTransportOptions options = {}) {
    options.url = Url(mode);
    auto transport = std::make_unique<HttpTransport>(std::move(options));
    auto started = transport->Start(inbox.Events());
    EXPECT_TRUE(started) << (started ? "" : started.error());
    EXPECT_TRUE(transport->Send(Initialize(1)));
    const json answer = inbox.AwaitResponse(1);
    EXPECT_EQ(answer["result"]["protocolVersion"], "2025-11-25") << answer.dump();
    return transport;
  }

  Peer server_;
  std::string base_;
};

TEST_F(ScriptedServerTest, JsonAnswersCarryTheSessionAndProtocolVersionOnwards) {
  Inbox inbox;
  auto transport = Connect("json", inbox);
  EXPECT_EQ(transport->session_id(), "s-json");
  ASSERT_TRUE(transport->Send(Notification("notifications/initialized")));
  ASSERT_TRUE(transport->Send(CallTool(2, "echo", {{"text", "hi there"}})));
  EXPECT_EQ(FirstText(inbox.AwaitResponse(2)), "hi there");
  transport->Close();

  // In the order sent, though each went on its own thread: the tool call
  // waited for the notification to be taken and the GET stream to be asked.
  std::vector<std::string> order;
  for (const json& entry : Log()) {
    const json body = entry["body"].is_string()
                          ? json::parse(entry["body"].get<std::string>(), nullptr, false)
                          : json();
    order.push_back(entry["method"].get<std::string>() +
                    (body.is_object() ? " " + body.value("method", "") : ""));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"POST initialize", "POST notifications/initialized",
                                             "GET", "POST tools/call", "DELETE"}));

  const auto posts = Logged("POST");
  ASSERT_EQ(posts.size(), 3u);
  const json& init = posts[0]["headers"];
  EXPECT_EQ(init["accept"], "application/json, text/event-stream");
  EXPECT_EQ(init["content-type"], "application/json");
  EXPECT_FALSE(init.contains("mcp-session-id"));
  EXPECT_FALSE(init.contains("mcp-protocol-version"));
  for (int i : {1, 2}) {
    EXPECT_EQ(posts[i]["headers"]["mcp-session-id"], "s-json");
    EXPECT_EQ(posts[i]["headers"]["mcp-protocol-version"], "2025-11-25");
  }
  // The GET stream was asked for once (405: none offered, never asked again),
  // and the session deleted (405 too, which is fine).
  const auto gets = Logged("GET");
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(gets[0]["headers"]["accept"], "text/event-stream");
  const auto deletes = Logged("DELETE");
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0]["headers"]["mcp-session-id"], "s-json");
}

TEST_F(ScriptedServerTest, LargeAndBatchedJsonAnswersArriveWhole) {
  Inbox inbox;
  auto transport = Connect("json", inbox);
  const std::string large(300 * 1024, 'x');  // beyond the HTTP client's usual 64 KB
  ASSERT_TRUE(transport->Send(CallTool(2, "echo", {{"text", large}})));
  EXPECT_EQ(FirstText(inbox.AwaitResponse(2)), large);
  ASSERT_TRUE(transport->Send(Request(3, "test/batch")));
  EXPECT_EQ(inbox.AwaitResponse(3)["result"]["batched"], true);
  EXPECT_FALSE(
      inbox.Await([](const json& m) { return m.value("method", "") == "notifications/progress"; })
          .is_null());
}

TEST_F(ScriptedServerTest, AnSseAnswerIsHandedOnAsItArrives) {
  // The server sends a progress notification and then waits for the client
  // to POST notifications/test/continue before it sends the response: this
  // finishes only if the notification came through while the stream was
  // open, and if a second POST can go while the first is in flight.
  Inbox inbox;
  auto transport = Connect("sse", inbox);
  ASSERT_TRUE(transport->Send(CallTool(2, "slow", {{"text", "streamed"}})));
  const json progress =
      inbox.Await([](const json& m) { return m.value("method", "") == "notifications/progress"; });
  ASSERT_FALSE(progress.is_null());
  EXPECT_EQ(inbox.count(), 2u);  // the initialize response and the progress only
  ASSERT_TRUE(transport->Send(Notification("notifications/test/continue")));
  EXPECT_EQ(FirstText(inbox.AwaitResponse(2)), "streamed");
}

TEST_F(ScriptedServerTest, TheGetStreamReconnectsWithTheLastEventId) {
  Inbox inbox;
  auto transport = Connect("sse", inbox);
  ASSERT_TRUE(transport->Send(Notification("notifications/initialized")));
  const json first = inbox.Await(
      [](const json& m) { return m.value("method", "") == "notifications/tools/list_changed"; });
  EXPECT_FALSE(first.is_null());
  const json second =
      inbox.Await([](const json& m) { return m.value("method", "") == "notifications/message"; });
  EXPECT_EQ(second["params"]["after"], "g1") << second.dump();
  transport->Close();

  const auto gets = Logged("GET");
  ASSERT_GE(gets.size(), 2u);
  EXPECT_FALSE(gets[0]["headers"].contains("last-event-id"));
  EXPECT_EQ(gets[1]["headers"]["last-event-id"], "g1");
  EXPECT_EQ(gets[1]["headers"]["mcp-session-id"], "s-sse");
  EXPECT_EQ(gets[1]["headers"]["mcp-protocol-version"], "2025-11-25");
}

TEST_F(ScriptedServerTest, AStreamThatEndsBeforeItsResponseIsResumed) {
  Inbox inbox;
  auto transport = Connect("resume", inbox);
  ASSERT_TRUE(transport->Send(CallTool(7, "echo", json::object())));
  EXPECT_EQ(FirstText(inbox.AwaitResponse(7)), "resumed after r2");
  EXPECT_FALSE(
      inbox.Await([](const json& m) { return m.value("method", "") == "notifications/progress"; })
          .is_null());
  // The resumed stream stays open on the server's side: the transport stops
  // reading it by itself once the response came, so Close is prompt.
  transport->Close();
  const auto gets = Logged("GET");
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(gets[0]["headers"]["last-event-id"], "r2");
  EXPECT_EQ(gets[0]["headers"]["mcp-session-id"], "s-resume");
  EXPECT_EQ(gets[0]["headers"]["accept"], "text/event-stream");
}

TEST_F(ScriptedServerTest, AStreamThatBreaksBeforeItsResponseIsResumed) {
  Inbox inbox;
  auto transport = Connect("break", inbox);
  ASSERT_TRUE(transport->Send(CallTool(7, "echo", json::object())));
  EXPECT_EQ(FirstText(inbox.AwaitResponse(7)), "resumed after r2");
  transport->Close();
  const auto gets = Logged("GET");
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(gets[0]["headers"]["last-event-id"], "r2");
}

TEST_F(ScriptedServerTest, AStreamWithoutIdsThatEndsEarlyFailsTheRequest) {
  Inbox inbox;
  auto transport = Connect("noid", inbox);
  ASSERT_TRUE(transport->Send(CallTool(2, "echo", json::object())));
  const json response = inbox.AwaitResponse(2);
  EXPECT_EQ(response["error"]["code"], -32000);
  EXPECT_NE(ErrorMessage(response).find("no event id"), std::string::npos) << response.dump();
}

TEST_F(ScriptedServerTest, AStreamTheServerWillNotResumeFailsTheRequest) {
  Inbox inbox;
  HttpTransportOptions options;
  options.default_retry = std::chrono::milliseconds(1);
  auto transport = Connect("resume405", inbox, options);
  ASSERT_TRUE(transport->Send(CallTool(2, "echo", json::object())));
  const std::string message = ErrorMessage(inbox.AwaitResponse(2));
  EXPECT_NE(message.find("cannot resume"), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 405"), std::string::npos) << message;
}

TEST_F(ScriptedServerTest, A400ThatSaysTheSessionIsGoneClosesTheTransport) {
  Inbox inbox;
  auto transport = Connect("expire400", inbox);
  ASSERT_TRUE(transport->Send(CallTool(2, "echo", json::object())));
  EXPECT_EQ(inbox.AwaitClosed(), "session expired");
  transport->Close();
}

TEST_F(ScriptedServerTest, A404OnTheSessionClosesTheTransport) {
  Inbox inbox;
  auto transport = Connect("expire", inbox);
  ASSERT_EQ(transport->session_id(), "s-expire");
  ASSERT_TRUE(transport->Send(CallTool(2, "echo", json::object())));
  EXPECT_EQ(inbox.AwaitClosed(), "session expired");
  EXPECT_FALSE(transport->Send(CallTool(3, "echo", json::object())));
  transport->Close();
  EXPECT_EQ(inbox.count(), 1u);  // no error response after on_closed
  EXPECT_EQ(inbox.closed_count(), 1u);
  EXPECT_TRUE(Logged("DELETE").empty());  // the server forgot the session already
}

TEST_F(ScriptedServerTest, TheBearerTokenAndHeadersGoWithEveryRequest) {
  Inbox inbox;
  HttpTransportOptions options;
  options.headers = {{"X-Team", "blue"}};
  options.bearer_token = "secret-token";
  auto transport = Connect("auth", inbox, options);
  ASSERT_TRUE(transport->Send(CallTool(2, "echo", {{"text", "let in"}})));
  EXPECT_EQ(FirstText(inbox.AwaitResponse(2)), "let in");
}

TEST_F(ScriptedServerTest, AWrongTokenIsOneClearLine) {
  Inbox inbox;
  HttpTransport transport(Url("auth"), {{"X-Team", "blue"}}, std::string("wrong"));
  ASSERT_TRUE(transport.Start(inbox.Events()));
  ASSERT_TRUE(transport.Send(Initialize(1)));
  const std::string message = ErrorMessage(inbox.AwaitResponse(1));
  EXPECT_EQ(message, "HTTP 401 from " + Url("auth") +
                         ": Unauthorized: bad token (check the server's bearer token and headers)");
}

TEST_F(ScriptedServerTest, HttpErrorsAndBadAnswersFailTheRequestWithOneLine) {
  struct Case {
    std::string mode;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {"error", "HTTP 500 from " + Url("error") + ": database on fire"},
           {"html",
            "the MCP server answered with content type \"text/html\", neither JSON nor an "
            "event stream"},
           {"garbage", "the MCP server's answer is not valid JSON: {not json"}}) {
    Inbox inbox;
    auto transport = Connect(c.mode, inbox);
    ASSERT_TRUE(transport->Send(CallTool(2, "echo", json::object())));
    EXPECT_EQ(ErrorMessage(inbox.AwaitResponse(2)), c.expected) << c.mode;
  }
}

TEST_F(ScriptedServerTest, CloseStopsAStreamInFlightAndNothingComesAfter) {
  Inbox inbox;
  auto transport = Connect("sse", inbox);
  ASSERT_TRUE(transport->Send(CallTool(2, "slow", json::object())));
  ASSERT_FALSE(
      inbox.Await([](const json& m) { return m.value("method", "") == "notifications/progress"; })
          .is_null());
  transport->Close();  // the server holds the stream for 60 s: this must not wait for it
  const std::size_t seen = inbox.count();
  transport->Close();  // idempotent
  transport.reset();
  EXPECT_EQ(inbox.count(), seen);
  EXPECT_EQ(inbox.closed_count(), 0u);
}

TEST_F(ScriptedServerTest, ManyRequestsInFlightAreAllAnswered) {
  Inbox inbox;
  HttpTransportOptions options;
  options.max_threads = 4;  // more requests than threads: the rest wait their turn
  auto transport = Connect("sse", inbox, options);
  for (int id = 10; id < 50; ++id)
    ASSERT_TRUE(transport->Send(CallTool(id, "echo", {{"text", std::to_string(id)}})));
  for (int id = 10; id < 50; ++id)
    EXPECT_EQ(FirstText(inbox.AwaitResponse(id)), std::to_string(id));
}

TEST_F(ScriptedServerTest, ACancelledRequestsStreamIsLetGo) {
  // The server holds the slow tool's stream open and, told it is cancelled,
  // never answers: the transport stops reading it, or the only thread would
  // stay on it and the next request would never go.
  Inbox inbox;
  HttpTransportOptions options;
  options.max_threads = 1;
  auto transport = Connect("sse", inbox, options);
  ASSERT_TRUE(transport->Send(CallTool(2, "slow", json::object())));
  ASSERT_FALSE(
      inbox.Await([](const json& m) { return m.value("method", "") == "notifications/progress"; })
          .is_null());
  ASSERT_TRUE(transport->Send(
      {{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 2}}}}));
  ASSERT_TRUE(transport->Send(Request(3, "ping")));
  EXPECT_TRUE(inbox.AwaitResponse(3).contains("result"));
  // One thread: the cancelled request was done with before the ping went,
  // and no error was made up for it.
  for (const json& m : inbox.Messages()) EXPECT_FALSE(m.contains("id") && m["id"] == 2) << m.dump();
}

TEST_F(ScriptedServerTest, ACallbackMaySendAndClose) {
  // The client above answers the server's requests from on_message, and may
  // give up on a server there: neither may deadlock.
  std::mutex mutex;
  std::condition_variable done_changed;
  bool done = false;
  HttpTransport transport(Url("json"), {}, std::nullopt);
  TransportEvents events;
  events.on_message = [&](json m) {
    if (m.value("id", 0) != 1) return;
    EXPECT_TRUE(transport.Send(Notification("notifications/initialized")));
    transport.Close();
    EXPECT_FALSE(transport.Send(CallTool(2, "echo", json::object())));
    std::lock_guard lock(mutex);
    done = true;
    done_changed.notify_all();
  };
  ASSERT_TRUE(transport.Start(events));
  ASSERT_TRUE(transport.Send(Initialize(1)));
  std::unique_lock lock(mutex);
  done_changed.wait_for(lock, std::chrono::seconds(60), [&] { return done; });
  EXPECT_TRUE(done);
}  // the destructor joins the threads, the one that ran the callback too

TEST(HttpTransportTest, AnUnreachableServerFailsTheRequest) {
  // A port nobody listens on: bind one, then close it.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/mcp";
  Inbox inbox;
  HttpTransport transport(url, {}, std::nullopt);
  ASSERT_TRUE(transport.Start(inbox.Events()));
  ASSERT_TRUE(transport.Send(Initialize(1)));
  const std::string message = ErrorMessage(inbox.AwaitResponse(1));
  EXPECT_TRUE(message.starts_with("cannot reach the MCP server at " + url + ": ")) << message;
}

TEST(HttpTransportTest, BadSettingsAreRefusedAtStart) {
  Inbox inbox;
  const auto start_error = [&](HttpTransportOptions options) {
    HttpTransport transport(std::move(options));
    auto started = transport.Start(inbox.Events());
    return started ? std::string("(started)") : started.error();
  };
  EXPECT_EQ(start_error({.url = "ftp://example.com/mcp"}),
            "the MCP server URL must start with http:// or https://: ftp://example.com/mcp");
  EXPECT_EQ(start_error({.url = "http://127.0.0.1:1/mcp", .headers = {{"X-A", "b\r\nX-B: c"}}}),
            "the value of header X-A has a line break in it");
  EXPECT_EQ(start_error({.url = "http://127.0.0.1:1/mcp", .headers = {{"Bad Name", "v"}}}),
            "the header name \"Bad Name\" is not a valid name");
  EXPECT_EQ(start_error({.url = "http://127.0.0.1:1/mcp", .bearer_token = "a\nb"}),
            "the bearer token is empty or has a line break in it");
}

TEST(HttpTransportTest, SendBeforeStartOrAfterCloseIsRefused) {
  HttpTransport transport("http://127.0.0.1:1/mcp", {}, std::nullopt);
  EXPECT_FALSE(transport.Send(Initialize(1)));
  Inbox inbox;
  ASSERT_TRUE(transport.Start(inbox.Events()));
  transport.Close();
  EXPECT_FALSE(transport.Send(Initialize(1)));
}

// The reference server of the MCP project, in its Streamable HTTP mode
// (sessions, SSE answers, an event store for resuming).
TEST(HttpTransportEverythingTest, InitializeListAndCallEcho) {
  const std::string port = FreePort();
  Peer server;
  ASSERT_TRUE(server.Start({IKIGAI_NODE22, IKIGAI_SERVER_EVERYTHING, "streamableHttp"},
                           {"PORT=" + port}, "listening on port "))
      << server.output();

  Inbox inbox;
  HttpTransport transport("http://127.0.0.1:" + port + "/mcp", {}, std::nullopt);
  ASSERT_TRUE(transport.Start(inbox.Events()));
  ASSERT_TRUE(transport.Send(Initialize(1)));
  const json initialized = inbox.AwaitResponse(1);
  ASSERT_TRUE(initialized.contains("result")) << initialized.dump();
  EXPECT_FALSE(transport.session_id().empty());
  ASSERT_TRUE(transport.Send(Notification("notifications/initialized")));
  ASSERT_TRUE(transport.Send(Request(2, "tools/list")));
  const json tools = inbox.AwaitResponse(2);
  ASSERT_TRUE(tools.contains("result")) << tools.dump();
  bool has_echo = false;
  for (const json& tool : tools["result"]["tools"]) has_echo |= tool["name"] == "echo";
  EXPECT_TRUE(has_echo) << tools.dump();
  ASSERT_TRUE(transport.Send(CallTool(3, "echo", {{"message", "hello over HTTP"}})));
  EXPECT_EQ(FirstText(inbox.AwaitResponse(3)), "Echo: hello over HTTP");
  transport.Close();
}

}  // namespace
}  // namespace ikigai::mcpclient
