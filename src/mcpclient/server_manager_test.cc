// The server manager against real servers on stdio: the official
// server-everything (from npm) and testdata/fake_server.js, which hangs,
// crashes or prints garbage on demand.
#include "mcpclient/server_manager.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace ikigai::mcpclient {
namespace {

using json = nlohmann::json;

const std::string kEverything =
    std::string(IKIGAI_NODE_MODULES) + "/@modelcontextprotocol/server-everything/dist/index.js";
const std::string kFake = std::string(IKIGAI_MCP_TESTDATA) + "/fake_server.js";

config::McpServerConfig Node(const std::string& name, std::vector<std::string> args) {
  config::McpServerConfig server;
  server.name = name;
  server.source = "test";
  server.command = "node";
  server.args = std::move(args);
  server.startup_timeout = std::chrono::seconds(60);
  server.tool_timeout = std::chrono::seconds(60);
  return server;
}

const registry::Tool* Find(const std::vector<registry::Tool>& tools, const std::string& name) {
  for (const registry::Tool& tool : tools)
    if (tool.name == name) return &tool;
  return nullptr;
}

std::string OutputOf(const protocol::WrappedJson& wrapped) {
  return wrapped["result"].value("output", "");
}

TEST(McpServerManager, CallsServerEverythingsEcho) {
  ServerManager manager({Node("everything", {kEverything, "stdio"})}, {});
  manager.StartAll();
  EXPECT_TRUE(manager.WaitStarted().empty());
  const auto tools = manager.Tools();
  const registry::Tool* echo = Find(tools, "mcp__everything__echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->source, registry::Source::kMcp);
  EXPECT_EQ(echo->mcp_tool, "echo");
  EXPECT_EQ(echo->schema.parameters["type"], "object");
  EXPECT_TRUE(echo->schema.parameters["properties"].contains("message"));
  EXPECT_TRUE(echo->schema.annotations.is_null());  // the server's hints are not trusted
  const auto wrapped = manager.Call(*echo, {{"message", "hello mcp"}}, -1);
  EXPECT_EQ(wrapped["tool_success"], true) << wrapped.dump();
  EXPECT_EQ(OutputOf(wrapped), "Echo: hello mcp");
  const auto status = manager.Status();
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].state, ServerState::kReady);
  EXPECT_FALSE(status[0].tools.empty());
}

TEST(McpServerManager, AServerThatHangsAtInitializeIsGivenUpWithOneLine) {
  auto hang = Node("hang", {kFake, "hang"});
  hang.startup_timeout = std::chrono::milliseconds(300);
  ServerManager manager({hang, Node("fine", {kFake, "ok"})}, {});
  manager.StartAll();
  const auto lines = manager.WaitStarted();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "MCP server 'hang' is not available: no answer to initialize within 300 ms; going "
            "on without it");
  EXPECT_TRUE(manager.WaitStarted().empty());  // told once
  const auto status = manager.Status();
  EXPECT_EQ(status[0].state, ServerState::kFailed);
  EXPECT_EQ(status[1].state, ServerState::kReady);
  EXPECT_NE(Find(manager.Tools(), "mcp__fine__env"), nullptr);
  EXPECT_EQ(manager.RequiredFailure(), "");
}

TEST(McpServerManager, ARequiredServerThatFailsIsSaid) {
  auto hang = Node("hang", {kFake, "hang"});
  hang.startup_timeout = std::chrono::milliseconds(100);
  hang.required = true;
  ServerManager manager({hang}, {});
  manager.StartAll();
  manager.WaitStarted();
  EXPECT_EQ(manager.RequiredFailure(),
            "MCP server 'hang' (required) failed to start: no answer to initialize within 100 "
            "ms. Fix it in test, or set \"required\": false");
}

TEST(McpServerManager, AServerPrintingGarbageFailsClearly) {
  ServerManager manager({Node("noisy", {kFake, "garbage"})}, {});
  manager.StartAll();
  const auto lines = manager.WaitStarted();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("MCP server 'noisy' is not available: initialize failed: the server "
                          "printed something that is not a JSON-RPC message on stdout: \"Server "
                          "starting on port 1234...\""),
            std::string::npos)
      << lines[0];
}

TEST(McpServerManager, AMissingCommandFailsClearly) {
  auto server = Node("gone", {});
  server.command = "no-such-mcp-server-here";
  ServerManager manager({server}, {});
  manager.StartAll();
  const auto lines = manager.WaitStarted();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with(
      "MCP server 'gone' is not available: command \"no-such-mcp-server-here\" not found in PATH"))
      << lines[0];
}

TEST(McpServerManager, AServerThatDiesMidCallGivesAnErrorAndIsStartedAgain) {
  const std::string marker = ::testing::TempDir() + "mcp-crash-" + std::to_string(::getpid());
  std::filesystem::remove(marker);
  ServerManager manager({Node("fake", {kFake, "ok", marker})}, {});
  manager.StartAll();
  manager.WaitStarted();
  const auto tools = manager.Tools();
  const registry::Tool* crash = Find(tools, "mcp__fake__crash");
  ASSERT_NE(crash, nullptr);
  const auto first = manager.Call(*crash, json::object(), -1);
  EXPECT_EQ(first["tool_success"], false);
  EXPECT_EQ(first["error_code"], "TOOL_CRASHED");
  const std::string error = first["error"];
  EXPECT_NE(error.find("stopped during the call (the server exited with code 3; its stderr: "
                       "fake: about to crash)"),
            std::string::npos)
      << error;
  EXPECT_EQ(manager.Status()[0].state, ServerState::kFailed);
  // Its tools stay listed (a registry made now still offers them), so that
  // a call can start it again.
  const auto after = manager.Tools();
  ASSERT_NE(Find(after, "mcp__fake__crash"), nullptr);
  const auto second = manager.Call(*Find(after, "mcp__fake__crash"), json::object(), -1);
  EXPECT_EQ(second["tool_success"], true) << second.dump();
  EXPECT_EQ(OutputOf(second), "survived");
  EXPECT_EQ(manager.Status()[0].state, ServerState::kReady);
  std::filesystem::remove(marker);
}

TEST(McpServerManager, TheServerSeesTheAllowListNeverTheApiKeys) {
  ::setenv("ANTHROPIC_API_KEY", "sk-secret", 1);
  ::setenv("MCP_TEST_PASSED_ON", "1", 1);
  ::setenv("MCP_TEST_NOT_PASSED", "1", 1);
  auto server = Node("fake", {kFake, "ok"});
  server.env_vars = {"MCP_TEST_PASSED_ON"};
  server.env = {{"MCP_TEST_SET", "x"}};
  ServerManager manager({server}, {});
  manager.StartAll();
  manager.WaitStarted();
  const auto tools = manager.Tools();
  const auto wrapped = manager.Call(*Find(tools, "mcp__fake__env"), json::object(), -1);
  const std::string names = OutputOf(wrapped);
  EXPECT_EQ(names.find("ANTHROPIC_API_KEY"), std::string::npos) << names;
  EXPECT_EQ(names.find("MCP_TEST_NOT_PASSED"), std::string::npos);
  EXPECT_NE(names.find("MCP_TEST_PASSED_ON"), std::string::npos);
  EXPECT_NE(names.find("MCP_TEST_SET"), std::string::npos);
  EXPECT_NE(names.find("PATH"), std::string::npos);
  ::unsetenv("ANTHROPIC_API_KEY");
}

TEST(McpServerManager, EnabledAndDisabledToolsFilterTheList) {
  auto only = Node("only", {kFake, "ok"});
  only.enabled_tools = std::vector<std::string>{"env", "image"};
  only.disabled_tools = {"image"};
  auto off = Node("off", {kFake, "ok"});
  off.enabled = false;
  ServerManager manager({only, off}, {});
  manager.StartAll();
  manager.WaitStarted();
  std::vector<std::string> names;
  for (const registry::Tool& tool : manager.Tools()) names.push_back(tool.name);
  EXPECT_EQ(names, std::vector<std::string>{"mcp__only__env"});
  EXPECT_EQ(manager.Status().size(), 1u);  // the disabled server is not started
}

// Waits for a file the fake server writes (its own pace, not a timing).
std::string WaitForFile(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(path);
    std::string text;
    if (in && std::getline(in, text) && !text.empty()) return text;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {};
}

TEST(McpServerManager, CancellingACallTellsTheServer) {
  const std::string marker = ::testing::TempDir() + "mcp-cancel-" + std::to_string(::getpid());
  std::filesystem::remove(marker + ".started");
  std::filesystem::remove(marker + ".cancelled");
  ServerManager manager({Node("fake", {kFake, "ok", marker})}, {});
  manager.StartAll();
  manager.WaitStarted();
  const auto tools = manager.Tools();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread user([&] {
    const std::string id = WaitForFile(marker + ".started");
    EXPECT_FALSE(id.empty());
    ASSERT_EQ(::write(fds[1], "x", 1), 1);
  });
  const auto wrapped = manager.Call(*Find(tools, "mcp__fake__slow"), json::object(), fds[0]);
  user.join();
  EXPECT_EQ(wrapped["error_code"], "CANCELLED") << wrapped.dump();
  const json cancelled = json::parse(WaitForFile(marker + ".cancelled"));
  EXPECT_EQ(std::to_string(cancelled["requestId"].get<long>()), WaitForFile(marker + ".started"));
  EXPECT_EQ(cancelled["reason"], "cancelled by the user");
  ::close(fds[0]);
  ::close(fds[1]);
  std::filesystem::remove(marker + ".started");
  std::filesystem::remove(marker + ".cancelled");
}

TEST(McpServerManager, ACallPastItsTimeoutIsCancelledOnTheServer) {
  const std::string marker = ::testing::TempDir() + "mcp-timeout-" + std::to_string(::getpid());
  std::filesystem::remove(marker + ".cancelled");
  auto server = Node("fake", {kFake, "ok", marker});
  server.tool_timeout = std::chrono::milliseconds(200);
  ServerManager manager({server}, {});
  manager.StartAll();
  manager.WaitStarted();
  const auto tools = manager.Tools();
  const auto wrapped = manager.Call(*Find(tools, "mcp__fake__slow"), json::object(), -1);
  EXPECT_EQ(wrapped["error_code"], "TOOL_TIMEOUT");
  EXPECT_NE(wrapped["error"].get<std::string>().find("mcp_servers.fake.tool_timeout_ms"),
            std::string::npos);
  EXPECT_EQ(json::parse(WaitForFile(marker + ".cancelled"))["reason"], "timed out");
  std::filesystem::remove(marker + ".started");
  std::filesystem::remove(marker + ".cancelled");
}

TEST(McpServerManager, AnHttpServerGetsItsHeadersAndBearerToken) {
  config::McpServerConfig web;
  web.name = "web";
  web.url = "http://127.0.0.1:1/mcp";
  web.headers = {{"X-Team", "a"}};
  web.bearer_token_env_var = "WEB_TOKEN";
  auto headers = HttpHeaders(web, [](const std::string& name) -> std::optional<std::string> {
    if (name == "WEB_TOKEN") return "t0k";
    return std::nullopt;
  });
  ASSERT_TRUE(headers) << headers.error();
  EXPECT_EQ(*headers,
            (std::map<std::string, std::string>{{"Authorization", "Bearer t0k"}, {"X-Team", "a"}}));
  auto unset = HttpHeaders(web, [](const std::string&) { return std::optional<std::string>(); });
  ASSERT_FALSE(unset);
  EXPECT_EQ(unset.error(),
            "bearer_token_env_var: WEB_TOKEN is not set (set it to the server's token)");
  // The factory gets them.
  std::map<std::string, std::string> seen;
  ManagerOptions options;
  options.env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "WEB_TOKEN") return "t0k";
    return std::nullopt;
  };
  options.http = [&](const config::McpServerConfig&, const std::map<std::string, std::string>& h)
      -> Result<std::unique_ptr<Transport>, std::string> {
    seen = h;
    return Err(std::string("no network in this test"));
  };
  ServerManager manager({web}, options);
  manager.StartAll();
  EXPECT_EQ(manager.WaitStarted(),
            std::vector<std::string>{"MCP server 'web' is not available: no network in this test; "
                                     "going on without it"});
  EXPECT_EQ(seen.at("Authorization"), "Bearer t0k");
}

TEST(McpServerManager, ToolsListChangedListsTheToolsAgain) {
  ServerManager manager({Node("fake", {kFake, "ok"})}, {});
  manager.StartAll();
  manager.WaitStarted();
  const auto before = manager.Tools();
  EXPECT_EQ(Find(before, "mcp__fake__grown"), nullptr);
  EXPECT_FALSE(manager.TakeToolsChanged());
  EXPECT_EQ(OutputOf(manager.Call(*Find(before, "mcp__fake__grow"), json::object(), -1)), "grown");
  EXPECT_TRUE(manager.TakeToolsChanged());
  EXPECT_FALSE(manager.TakeToolsChanged());
  EXPECT_NE(Find(manager.Tools(), "mcp__fake__grown"), nullptr);
}

TEST(McpServerManager, ImagesAreSummarized) {
  ServerManager manager({Node("fake", {kFake, "ok"})}, {});
  manager.StartAll();
  manager.WaitStarted();
  const auto tools = manager.Tools();
  EXPECT_EQ(OutputOf(manager.Call(*Find(tools, "mcp__fake__image"), json::object(), -1)),
            "here:\n[image/png, 3 bytes]");
}

TEST(McpServerManager, AnHttpServerThatCannotBeReachedIsOneLine) {
  config::McpServerConfig web;
  web.name = "web";
  web.url = "http://127.0.0.1:1/mcp";
  ServerManager manager({web}, {});
  manager.StartAll();
  const auto lines = manager.WaitStarted();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(
      lines[0].starts_with("MCP server 'web' is not available: initialize failed: cannot "
                           "reach the MCP server at http://127.0.0.1:1/mcp: "))
      << lines[0];
  EXPECT_TRUE(lines[0].ends_with("; going on without it")) << lines[0];
  EXPECT_EQ(lines[0].find('\n'), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace ikigai::mcpclient
