#include "mcpserver/dispatcher.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <condition_variable>
#include <mutex>
#include <vector>

namespace ikigai::mcpserver {
namespace {

using Json = nlohmann::json;

registry::Tool MakeTool(const std::string& name, Json schema) {
  auto parsed = protocol::SchemaFromJson(std::move(schema));
  EXPECT_TRUE(parsed) << parsed.error();
  return {name, "/fake/" + name + "-tool", registry::Source::kSystem, *parsed, {}};
}

// Tools in memory: "echo" answers its arguments, "fail" an operation
// failure, "crash" a tool failure, "slow" waits until cancelled.
class FakeTools final : public ToolHost {
 public:
  FakeTools() {
    registry_ = std::make_shared<const registry::Registry>(
        std::vector<registry::Tool>{
            MakeTool("echo", {{"name", "echo"},
                              {"description", "Echo the arguments"},
                              {"parameters",
                               {{"type", "object"},
                                {"$schema", "https://json-schema.org/draft/2020-12/schema"},
                                {"properties", {{"text", {{"type", "string"}}}}},
                                {"additionalProperties", false}}},
                              {"annotations", {{"readOnlyHint", true}}}}),
            MakeTool("fail",
                     {{"name", "fail"}, {"description", "Fails"}, {"parameters", Json::object()}}),
            MakeTool(
                "crash",
                {{"name", "crash"}, {"description", "Crashes"}, {"parameters", Json::object()}}),
            MakeTool("slow",
                     {{"name", "slow"}, {"description", "Waits"}, {"parameters", Json::object()}})},
        std::vector<registry::DiscoveryFailure>{});
  }
  std::shared_ptr<const registry::Registry> Tools() const override { return registry_; }
  protocol::WrappedJson Call(const registry::Registry&, const registry::Tool& tool, Json arguments,
                             int cancel_fd) override {
    if (tool.name == "echo")
      return protocol::WrapSuccess(protocol::WrappedJson::parse(arguments.dump()));
    if (tool.name == "fail") {
      return protocol::WrapSuccess({{"error", "no such file: x"}, {"error_code", "NOT_FOUND"}});
    }
    if (tool.name == "crash") {
      return protocol::WrapFailure(protocol::wrapper_code::kToolCrashed, "the tool exited with 3");
    }
    {
      std::lock_guard lock(mutex_);
      ++slow_started_;
      started_.notify_all();
    }
    pollfd fd{cancel_fd, POLLIN, 0};
    ::poll(&fd, 1, -1);
    std::lock_guard lock(mutex_);
    ++slow_cancelled_;
    cancelled_.notify_all();
    return protocol::WrapFailure(protocol::wrapper_code::kCancelled, "cancelled");
  }
  void WaitForSlowCalls(int n) {
    std::unique_lock lock(mutex_);
    started_.wait(lock, [&] { return slow_started_ >= n; });
  }
  void WaitForCancelledCalls(int n) {
    std::unique_lock lock(mutex_);
    cancelled_.wait(lock, [&] { return slow_cancelled_ >= n; });
  }
  int slow_cancelled() {
    std::lock_guard lock(mutex_);
    return slow_cancelled_;
  }

 private:
  std::shared_ptr<const registry::Registry> registry_;
  std::mutex mutex_;
  std::condition_variable started_;
  std::condition_variable cancelled_;
  int slow_started_ = 0;
  int slow_cancelled_ = 0;
};

// Collects what the dispatcher sends, from any thread.
class Inbox {
 public:
  Dispatcher::Send sender() {
    return [this](const Json& message) {
      std::lock_guard lock(mutex_);
      messages_.push_back(message);
      arrived_.notify_all();
    };
  }
  std::vector<Json> WaitFor(std::size_t n) {
    std::unique_lock lock(mutex_);
    arrived_.wait(lock, [&] { return messages_.size() >= n; });
    return messages_;
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return messages_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<Json> messages_;
};

class DispatcherTest : public ::testing::Test {
 protected:
  // The one answer to a request answered at once.
  Json Ask(const Json& message) {
    Inbox inbox;
    EXPECT_EQ(dispatcher_.HandleJson(message, inbox.sender()), Dispatcher::Kind::kRequest);
    return inbox.WaitFor(1).front();
  }
  Json Request(int id, const std::string& method, Json params = Json::object()) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  }

  FakeTools tools_;
  Inbox notifications_;
  Dispatcher dispatcher_{tools_, {"ikigai", "1.2.3"}, notifications_.sender()};
};

TEST_F(DispatcherTest, InitializeEchoesASupportedVersionAndOffersTools) {
  for (const char* version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    const Json answer = Ask(Request(1, "initialize", {{"protocolVersion", version}}));
    EXPECT_EQ(answer["result"]["protocolVersion"], version);
    EXPECT_EQ(answer["result"]["serverInfo"]["name"], "ikigai");
    EXPECT_EQ(answer["result"]["serverInfo"]["version"], "1.2.3");
    EXPECT_EQ(answer["result"]["capabilities"]["tools"]["listChanged"], true);
    EXPECT_TRUE(answer["result"]["capabilities"].contains("logging"));
    EXPECT_EQ(dispatcher_.protocol_version(), version);
  }
}

TEST_F(DispatcherTest, InitializeWithAnUnknownVersionGetsTheNewest) {
  const Json answer = Ask(Request(1, "initialize", {{"protocolVersion", "1999-01-01"}}));
  EXPECT_EQ(answer["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(DispatcherTest, PingAnswersAnEmptyObjectWithTheSameId) {
  const Json answer = Ask({{"jsonrpc", "2.0"}, {"id", "abc"}, {"method", "ping"}});
  EXPECT_EQ(answer, Json({{"jsonrpc", "2.0"}, {"id", "abc"}, {"result", Json::object()}}));
}

TEST_F(DispatcherTest, ToolsListKeepsTheSchemaWholeAndTheAnnotations) {
  const Json tools = Ask(Request(2, "tools/list"))["result"]["tools"];
  ASSERT_EQ(tools.size(), 4u);
  const Json& echo = tools[1];
  EXPECT_EQ(echo["name"], "echo");
  EXPECT_EQ(echo["description"], "Echo the arguments");
  EXPECT_EQ(echo["inputSchema"]["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(echo["inputSchema"]["additionalProperties"], false);
  EXPECT_EQ(echo["inputSchema"]["type"], "object");
  EXPECT_EQ(echo["annotations"]["readOnlyHint"], true);
}

TEST_F(DispatcherTest, TheToolListDoesNotDependOnTheSession) {
  Inbox other_notifications;
  Dispatcher other(tools_, {"ikigai", "1"}, other_notifications.sender());
  Inbox inbox;
  other.HandleJson(Request(1, "tools/list"), inbox.sender());  // never initialized
  EXPECT_EQ(inbox.WaitFor(1).front()["result"], Ask(Request(1, "tools/list"))["result"]);
}

TEST_F(DispatcherTest, ACallAnswersTextAndStructuredContent) {
  const Json answer =
      Ask(Request(3, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}));
  const Json& result = answer["result"];
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"], Json({{"text", "hi"}}));
  ASSERT_EQ(result["content"].size(), 1u);
  EXPECT_EQ(result["content"][0]["type"], "text");
  EXPECT_EQ(Json::parse(result["content"][0]["text"].get<std::string>()), Json({{"text", "hi"}}));
}

TEST_F(DispatcherTest, AnOperationFailureIsAnErrorResultWithTheMessage) {
  const Json result = Ask(Request(4, "tools/call", {{"name", "fail"}}))["result"];
  EXPECT_EQ(result["isError"], true);
  EXPECT_EQ(result["content"][0]["text"], "no such file: x (NOT_FOUND)");
  EXPECT_EQ(result["structuredContent"]["error_code"], "NOT_FOUND");
}

TEST_F(DispatcherTest, AToolFailureIsAnErrorResultWithTheMessage) {
  const Json result = Ask(Request(5, "tools/call", {{"name", "crash"}}))["result"];
  EXPECT_EQ(result["isError"], true);
  EXPECT_EQ(result["content"][0]["text"], "the tool exited with 3 (TOOL_CRASHED)");
}

TEST_F(DispatcherTest, AnUnknownToolIsAnInvalidParamsError) {
  const Json answer = Ask(Request(6, "tools/call", {{"name", "nope"}}));
  EXPECT_EQ(answer["error"]["code"], kInvalidParams);
  EXPECT_NE(answer["error"]["message"].get<std::string>().find("Unknown tool: nope"),
            std::string::npos);
}

TEST_F(DispatcherTest, BadCallParamsAreInvalidParams) {
  EXPECT_EQ(Ask(Request(7, "tools/call", Json::object()))["error"]["code"], kInvalidParams);
  EXPECT_EQ(Ask(Request(8, "tools/call", {{"name", "echo"}, {"arguments", "x"}}))["error"]["code"],
            kInvalidParams);
  EXPECT_EQ(
      Ask({{"jsonrpc", "2.0"}, {"id", 9}, {"method", "ping"}, {"params", 3}})["error"]["code"],
      kInvalidParams);
}

TEST_F(DispatcherTest, AnUnknownMethodIsMethodNotFound) {
  const Json answer = Ask(Request(10, "resources/list"));
  EXPECT_EQ(answer["id"], 10);
  EXPECT_EQ(answer["error"]["code"], kMethodNotFound);
}

TEST_F(DispatcherTest, TextThatIsNotJsonIsAParseErrorWithANullId) {
  Inbox inbox;
  EXPECT_EQ(dispatcher_.Handle("{\"jsonrpc\": ", inbox.sender()), Dispatcher::Kind::kInvalid);
  const Json answer = inbox.WaitFor(1).front();
  EXPECT_EQ(answer["error"]["code"], kParseError);
  EXPECT_TRUE(answer["id"].is_null());
}

TEST_F(DispatcherTest, MessagesThatAreNotJsonRpcAreInvalidRequests) {
  for (const Json& bad :
       {Json::array({Request(1, "ping")}), Json(3), Json({{"id", 1}, {"method", "ping"}}),
        Json({{"jsonrpc", "2.0"}, {"id", 1}, {"method", 5}}),
        Json({{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "ping"}}),
        Json({{"jsonrpc", "2.0"}, {"id", 1}}),
        Json({{"jsonrpc", 2}, {"id", 1}, {"method", "ping"}})}) {
    Inbox inbox;
    EXPECT_EQ(dispatcher_.HandleJson(bad, inbox.sender()), Dispatcher::Kind::kInvalid) << bad;
    EXPECT_EQ(inbox.WaitFor(1).front()["error"]["code"], kInvalidRequest) << bad;
  }
}

// Members of the wrong type are answered, never a crash.
TEST_F(DispatcherTest, ParamsOfTheWrongTypeAreAnswered) {
  EXPECT_EQ(
      Ask(Request(1, "initialize", {{"protocolVersion", 20251125}}))["result"]["protocolVersion"],
      "2025-11-25");
  EXPECT_EQ(Ask(Request(2, "logging/setLevel", {{"level", 3}}))["error"]["code"], kInvalidParams);
}

TEST_F(DispatcherTest, NotificationsAndResponsesGetNoAnswer) {
  Inbox inbox;
  EXPECT_EQ(dispatcher_.HandleJson({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                                   inbox.sender()),
            Dispatcher::Kind::kNotification);
  EXPECT_EQ(dispatcher_.HandleJson({{"jsonrpc", "2.0"}, {"id", 4}, {"result", Json::object()}},
                                   inbox.sender()),
            Dispatcher::Kind::kResponse);
  EXPECT_EQ(inbox.size(), 0u);
}

TEST_F(DispatcherTest, SetLevelAcceptsTheLevelsAndFiltersLogMessages) {
  EXPECT_EQ(Ask(Request(1, "logging/setLevel", {{"level", "loud"}}))["error"]["code"],
            kInvalidParams);
  EXPECT_EQ(Ask(Request(2, "logging/setLevel", {{"level", "error"}}))["result"], Json::object());
  dispatcher_.Log("warning", "not shown");
  dispatcher_.Log("critical", "shown");
  const Json message = notifications_.WaitFor(1).front();
  EXPECT_EQ(message["method"], "notifications/message");
  EXPECT_EQ(message["params"]["level"], "critical");
  EXPECT_EQ(message["params"]["data"], "shown");
  EXPECT_EQ(notifications_.size(), 1u);
}

TEST_F(DispatcherTest, ToolsChangedIsANotification) {
  dispatcher_.NotifyToolsChanged();
  EXPECT_EQ(notifications_.WaitFor(1).front(),
            Json({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}));
}

TEST_F(DispatcherTest, CallsRunAtOnceAndCancelledOnesGetNoAnswer) {
  Inbox answers;
  dispatcher_.HandleJson(Request(20, "tools/call", {{"name", "slow"}}), answers.sender());
  dispatcher_.HandleJson(Request(21, "tools/call", {{"name", "slow"}}), answers.sender());
  tools_.WaitForSlowCalls(2);  // both running: neither waits for the other
  // Another call answers while they run.
  dispatcher_.HandleJson(Request(22, "tools/call", {{"name", "echo"}}), answers.sender());
  EXPECT_EQ(answers.WaitFor(1).front()["id"], 22);
  dispatcher_.HandleJson({{"jsonrpc", "2.0"},
                          {"method", "notifications/cancelled"},
                          {"params", {{"requestId", 20}, {"reason", "user"}}}},
                         answers.sender());
  dispatcher_.CancelAll();
  // The destructor's wait, here by hand: both calls saw their cancel_fd.
  tools_.WaitForCancelledCalls(2);
  EXPECT_EQ(answers.size(), 1u);
}

TEST_F(DispatcherTest, ADuplicateIdWhileTheCallRunsIsRefused) {
  Inbox answers;
  dispatcher_.HandleJson(Request(30, "tools/call", {{"name", "slow"}}), answers.sender());
  tools_.WaitForSlowCalls(1);
  EXPECT_EQ(Ask(Request(30, "tools/call", {{"name", "slow"}}))["error"]["code"], kInvalidRequest);
}

TEST(DispatcherLifetime, DestroyingTheDispatcherCancelsAndWaitsForCalls) {
  FakeTools tools;
  Inbox answers;
  {
    Dispatcher dispatcher(tools, {"ikigai", "1"}, answers.sender());
    dispatcher.HandleJson(
        {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "slow"}}}},
        answers.sender());
    tools.WaitForSlowCalls(1);
  }
  EXPECT_EQ(tools.slow_cancelled(), 1);
  EXPECT_EQ(answers.size(), 0u);
}

}  // namespace
}  // namespace ikigai::mcpserver
