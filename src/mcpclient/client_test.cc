#include "mcpclient/client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <mutex>

#include "base/unique_fd.h"

namespace ikigai::mcpclient {
namespace {

using json = nlohmann::json;

// A server in the test: `answer` decides the reply to each request sent
// (null: none); everything sent is kept.
class FakeTransport : public Transport {
 public:
  std::function<json(const json& request)> answer = [](const json&) { return json(); };
  std::vector<json> sent;
  TransportEvents events;
  bool closed = false;

  Result<bool, std::string> Start(TransportEvents e) override {
    events = std::move(e);
    return true;
  }
  Result<bool, std::string> Send(const json& message) override {
    std::lock_guard lock(mutex_);
    sent.push_back(message);
    if (message.contains("method") && message.contains("id")) {
      json reply = answer(message);
      if (!reply.is_null()) {
        reply["jsonrpc"] = "2.0";
        reply["id"] = message["id"];
        events.on_message(reply);
      }
    }
    return true;
  }
  void Close() override { closed = true; }
  std::vector<json> Sent(const std::string& method) {
    std::vector<json> out;
    for (const json& m : sent)
      if (m.value("method", "") == method) out.push_back(m);
    return out;
  }

 private:
  std::recursive_mutex mutex_;
};

json Initialized(const std::string& version) {
  return {{"result",
           {{"protocolVersion", version},
            {"capabilities", json::object()},
            {"serverInfo", {{"name", "fake"}}}}}};
}

struct Harness {
  FakeTransport* fake = nullptr;
  std::unique_ptr<Client> client;
  Harness() {
    auto transport = std::make_unique<FakeTransport>();
    fake = transport.get();
    client = std::make_unique<Client>(std::move(transport));
  }
};

TEST(McpClient, InitializesWithTheNewestVersionThenSaysInitialized) {
  Harness h;
  h.fake->answer = [](const json&) { return Initialized("2025-11-25"); };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  const json& init = h.fake->sent.at(0);
  EXPECT_EQ(init["method"], "initialize");
  EXPECT_EQ(init["params"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(init["params"]["clientInfo"]["name"], "ikigai");
  EXPECT_EQ(h.fake->sent.at(1),
            json({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  EXPECT_EQ(h.client->server_info()["name"], "fake");
}

TEST(McpClient, AcceptsOlderVersionsAndRefusesUnknownOnes) {
  for (const char* version : {"2025-06-18", "2025-03-26", "2024-11-05"}) {
    Harness h;
    h.fake->answer = [&](const json&) { return Initialized(version); };
    ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5))) << version;
    EXPECT_EQ(h.client->protocol_version(), version);
  }
  Harness h;
  h.fake->answer = [](const json&) { return Initialized("1999-01-01"); };
  auto connected = h.client->Connect(std::chrono::seconds(5));
  ASSERT_FALSE(connected);
  EXPECT_EQ(connected.error(),
            "the server speaks MCP 1999-01-01, which ikigai does not (it speaks 2025-11-25 and "
            "older)");
}

TEST(McpClient, AnInitializeErrorIsOneLine) {
  Harness h;
  h.fake->answer = [](const json&) {
    return json{{"error", {{"code", -32600}, {"message", "bad client"}}}};
  };
  auto connected = h.client->Connect(std::chrono::seconds(5));
  ASSERT_FALSE(connected);
  EXPECT_EQ(connected.error(), "initialize failed: bad client");
}

TEST(McpClient, ListsEveryPageOfTools) {
  Harness h;
  h.fake->answer = [](const json& request) -> json {
    if (request["method"] == "initialize") return Initialized("2025-11-25");
    const std::string cursor = request["params"].value("cursor", "");
    if (cursor.empty()) {
      return {{"result",
               {{"tools", {{{"name", "a"}, {"inputSchema", {{"type", "object"}}}}}},
                {"nextCursor", "p2"}}}};
    }
    return {
        {"result",
         {{"tools",
           {{{"name", "b"}, {"description", "B"}, {"annotations", {{"readOnlyHint", true}}}}}}}}};
  };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  auto tools = h.client->ListTools(std::chrono::seconds(5));
  ASSERT_TRUE(tools) << tools.error();
  ASSERT_EQ(tools->size(), 2u);
  EXPECT_EQ((*tools)[0].name, "a");
  EXPECT_EQ((*tools)[1].description, "B");
  EXPECT_EQ((*tools)[1].input_schema, json::object());
  EXPECT_EQ((*tools)[1].annotations["readOnlyHint"], true);
  EXPECT_EQ(h.fake->Sent("tools/list").at(1)["params"]["cursor"], "p2");
}

TEST(McpClient, CallsATool) {
  Harness h;
  h.fake->answer = [](const json& request) -> json {
    if (request["method"] == "initialize") return Initialized("2025-11-25");
    return {
        {"result",
         {{"content", {{{"type", "text"}, {"text", request["params"]["arguments"]["message"]}}}}}}};
  };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  auto result = h.client->CallTool("echo", {{"message", "hi"}}, std::chrono::seconds(5));
  ASSERT_TRUE(result);
  EXPECT_EQ((*result)["content"][0]["text"], "hi");
  EXPECT_EQ(h.fake->Sent("tools/call").at(0)["params"]["name"], "echo");
}

TEST(McpClient, ATimeoutIsCancelledOnTheServer) {
  Harness h;
  h.fake->answer = [](const json& request) -> json {
    if (request["method"] == "initialize") return Initialized("2025-11-25");
    return nullptr;  // never answers a call
  };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  auto result = h.client->CallTool("slow", json::object(), std::chrono::milliseconds(1));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, Failure::kTimeout);
  const auto cancelled = h.fake->Sent("notifications/cancelled");
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_EQ(cancelled[0]["params"]["requestId"], h.fake->Sent("tools/call").at(0)["id"]);
}

TEST(McpClient, AReadableCancelDescriptorCancelsTheCall) {
  Harness h;
  h.fake->answer = [](const json& request) -> json {
    if (request["method"] == "initialize") return Initialized("2025-11-25");
    return nullptr;
  };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  ASSERT_EQ(::write(write_end.get(), "x", 1), 1);
  auto result = h.client->CallTool("slow", json::object(), std::chrono::hours(1), read_end.get());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, Failure::kCancelled);
  const auto cancelled = h.fake->Sent("notifications/cancelled");
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_EQ(cancelled[0]["params"]["reason"], "cancelled by the user");
}

TEST(McpClient, AClosedConnectionEndsTheCallsWaiting) {
  Harness h;
  h.fake->answer = [&](const json& request) -> json {
    if (request["method"] == "initialize") return Initialized("2025-11-25");
    h.fake->events.on_closed("the server exited with code 3");
    return nullptr;
  };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  auto result = h.client->CallTool("crash", json::object(), std::chrono::hours(1));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, Failure::kClosed);
  EXPECT_EQ(result.error().message, "the server exited with code 3");
  EXPECT_TRUE(h.client->closed());
  auto next = h.client->CallTool("x", json::object(), std::chrono::hours(1));
  ASSERT_FALSE(next);
  EXPECT_EQ(next.error().kind, Failure::kClosed);
}

TEST(McpClient, AnswersPingAndRefusesOtherServerRequests) {
  Harness h;
  h.fake->answer = [](const json&) { return Initialized("2025-11-25"); };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  h.fake->events.on_message({{"jsonrpc", "2.0"}, {"id", "s1"}, {"method", "ping"}});
  h.fake->events.on_message({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "sampling/createMessage"}});
  const json& pong = h.fake->sent.at(h.fake->sent.size() - 2);
  EXPECT_EQ(pong, json({{"jsonrpc", "2.0"}, {"id", "s1"}, {"result", json::object()}}));
  const json& refused = h.fake->sent.back();
  EXPECT_EQ(refused["id"], 7);
  EXPECT_EQ(refused["error"]["code"], -32601);
}

TEST(McpClient, PassesOnToolsListChanged) {
  Harness h;
  h.fake->answer = [](const json&) { return Initialized("2025-11-25"); };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  int changes = 0;
  h.client->OnToolsChanged([&] { ++changes; });
  h.fake->events.on_message({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
  h.fake->events.on_message({{"jsonrpc", "2.0"}, {"method", "notifications/other"}});
  EXPECT_EQ(changes, 1);
}

TEST(McpClient, AnErrorAnswerCarriesItsCode) {
  Harness h;
  h.fake->answer = [](const json& request) -> json {
    if (request["method"] == "initialize") return Initialized("2025-11-25");
    return {{"error", {{"code", -32602}, {"message", "Unknown tool: x"}}}};
  };
  ASSERT_TRUE(h.client->Connect(std::chrono::seconds(5)));
  auto result = h.client->CallTool("x", json::object(), std::chrono::seconds(5));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, Failure::kError);
  EXPECT_EQ(result.error().code, -32602);
  EXPECT_EQ(result.error().message, "Unknown tool: x");
}

}  // namespace
}  // namespace ikigai::mcpclient
