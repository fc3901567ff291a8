// MCP servers as tools end to end: the real `ikigai` binary with servers
// from npm (server-everything, server-filesystem) and the misbehaving
// testdata/fake_server.js, the model played by aimock (OpenAI's API; the
// provider does not matter to MCP).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "mcpclient/testing/peer.h"
#include "providers/testing/aimock_server.h"
#include "session/project_store.h"
#include "testing/tool_runner.h"

namespace ikigai::mcpclient {
namespace {

using nlohmann::json;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::TempDir;
using testing::ToolRun;
using testing::WriteFile;
using Env = std::vector<std::pair<std::string, std::string>>;

const std::string kIkigai = IKIGAI_BIN;
const std::string kEverything =
    std::string(IKIGAI_NODE_MODULES) + "/@modelcontextprotocol/server-everything/dist/index.js";
const std::string kFilesystem =
    std::string(IKIGAI_NODE_MODULES) + "/@modelcontextprotocol/server-filesystem/dist/index.js";
const std::string kFake = std::string(IKIGAI_MCP_TESTDATA) + "/fake_server.js";

constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"toolCallId": "call_echo"}, "response": {"content": "The server said it."}},
  {"match": {"toolCallId": "call_crash2"}, "response": {"content": "It came back."}},
  {"match": {"toolCallId": "call_crash1"},
   "response": {"toolCalls": [{"id": "call_crash2", "name": "mcp__fake__crash", "arguments": {}}]}},
  {"match": {"toolCallId": "call_list"}, "response": {"content": "Listed."}},
  {"match": {"userMessage": "mcp-echo"},
   "response": {"toolCalls": [{"id": "call_echo", "name": "mcp__everything__echo", "arguments": {"message": "hello-mcp"}}]}},
  {"match": {"userMessage": "mcp-crash"},
   "response": {"toolCalls": [{"id": "call_crash1", "name": "mcp__fake__crash", "arguments": {}}]}},
  {"match": {"userMessage": "mcp-list"},
   "response": {"toolCalls": [{"id": "call_list", "name": "mcp__fs__list_directory", "arguments": {"path": "."}}]}},
  {"match": {"userMessage": "mcp-plain"}, "response": {"content": "Plain answer."}}
]})";

class McpOneShotTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    ::mkdir(project().c_str(), 0755);
    ::mkdir((home_ / ".ikigai").c_str(), 0755);
    ASSERT_TRUE(session::ProjectStore(home_ / ".ikigai/projects.json").SetTrusted(project(), true));
  }
  std::string project() const { return home_ / "project"; }

  void Configure(const json& servers) const {
    WriteFile(home_ / ".ikigai/config.json", json{{"mcp_servers", servers}}.dump());
  }
  static json Node(std::vector<std::string> args) { return {{"command", "node"}, {"args", args}}; }

  Env Environment() const {
    return {{"HOME", home_.path()},
            {"OPENAI_API_KEY", AimockServer::kApiKey},
            {"OPENAI_BASE_URL", aimock_->openai_base_url()},
            {"ANTHROPIC_API_KEY", ""},
            {"GEMINI_API_KEY", ""},
            {"IKIGAI_PROVIDER", ""},
            {"IKIGAI_MODEL", ""},
            {"IKIGAI_PERMISSIONS", "auto"}};
  }
  ToolRun Ikigai(const std::vector<std::string>& args) const {
    return testing::RunExecutable(kIkigai, "",
                                  {.argv_extra = args,
                                   .env = Environment(),
                                   .cwd = project(),
                                   .timeout = std::chrono::seconds(120)});
  }
  static std::vector<json> Requests() {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    std::vector<json> bodies;
    if (journal)
      for (const json& entry : *journal) bodies.push_back(entry["body"]);
    return bodies;
  }
  static json ResultFor(const json& body, const std::string& call_id) {
    for (const json& message : body["messages"]) {
      if (message["role"] == "tool" && message["tool_call_id"] == call_id)
        return json::parse(message["content"].get<std::string>(), nullptr, false);
    }
    ADD_FAILURE() << "no result for " << call_id << " in " << body["messages"].dump();
    return json();
  }
  static std::vector<std::string> ToolNames(const json& body) {
    std::vector<std::string> names;
    for (const json& tool : body["tools"]) names.push_back(tool["function"]["name"]);
    return names;
  }
  static int Count(const std::string& text, const std::string& what) {
    int count = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++count;
    return count;
  }

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  TempDir home_;
};

TEST_F(McpOneShotTest, TheModelCallsEverythingsEchoAndGetsTheAnswer) {
  Configure({{"everything", Node({kEverything, "stdio"})}});
  auto run = Ikigai({"-p", "mcp-echo"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "The server said it.\n");
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto names = ToolNames(requests[0]);
  EXPECT_NE(std::find(names.begin(), names.end(), "mcp__everything__echo"), names.end());
  const json result = ResultFor(requests[1], "call_echo");
  EXPECT_EQ(result["tool_success"], true) << result;
  EXPECT_EQ(result["result"]["output"], "Echo: hello-mcp");
}

// The same over Streamable HTTP: server-everything in its streamableHttp
// mode as a `url` server.
TEST_F(McpOneShotTest, TheModelCallsEchoOfAServerOverStreamableHttp) {
  const std::string port = testing::FreePort();
  testing::Peer server;
  ASSERT_TRUE(
      server.Start({"node", kEverything, "streamableHttp"}, {"PORT=" + port}, "listening on port "))
      << server.output();
  Configure({{"everything", {{"url", "http://127.0.0.1:" + port + "/mcp"}}}});
  auto run = Ikigai({"-p", "mcp-echo"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "The server said it.\n");
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const json result = ResultFor(requests[1], "call_echo");
  EXPECT_EQ(result["tool_success"], true) << result;
  EXPECT_EQ(result["result"]["output"], "Echo: hello-mcp");
}

// echo says readOnlyHint: true, but a server's hints are not trusted: in
// ask mode, where -p cannot ask, the call is refused like any other tool's.
TEST_F(McpOneShotTest, AServersReadOnlyHintIsNotTrustedForApproval) {
  Configure({{"everything", Node({kEverything, "stdio"})}});
  ToolRun run = testing::RunExecutable(kIkigai, "",
                                       {.argv_extra = {"--permissions", "ask", "-p", "mcp-echo"},
                                        .env = Environment(),
                                        .cwd = project(),
                                        .timeout = std::chrono::seconds(120)});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const json result = ResultFor(requests[1], "call_echo");
  EXPECT_EQ(result["error_code"], "PERMISSION_DENIED") << result;
}

TEST_F(McpOneShotTest, ToolCallReachesAnMcpTool) {
  Configure({{"everything", Node({kEverything, "stdio"})}});
  auto run = Ikigai({"tool", "call", "mcp__everything__echo", R"({"message": "direct"})"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.json["result"]["output"], "Echo: direct") << run.out;
  auto list = Ikigai({"tool", "list"});
  EXPECT_NE(list.out.find("mcp__everything__echo (mcp:everything)"), std::string::npos) << list.out;
  // A server given up is said on stderr by the tool commands too.
  json hang = Node({kFake, "hang"});
  hang["startup_timeout_ms"] = 300;
  Configure({{"everything", Node({kEverything, "stdio"})}, {"hang", hang}});
  list = Ikigai({"tool", "list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.err.find("ikigai: MCP server 'hang' is not available"), std::string::npos)
      << list.err;
}

TEST_F(McpOneShotTest, AServerThatHangsIsGivenUpWithOneLineAndTheSessionGoesOn) {
  json hang = Node({kFake, "hang"});
  hang["startup_timeout_ms"] = 500;
  Configure({{"hang", hang}});
  auto run = Ikigai({"-p", "mcp-plain"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Plain answer.\n");
  EXPECT_EQ(Count(run.err, "MCP server"), 1) << run.err;
  EXPECT_NE(run.err.find("ikigai: MCP server 'hang' is not available: no answer to initialize "
                         "within 500 ms; going on without it\n"),
            std::string::npos)
      << run.err;
}

TEST_F(McpOneShotTest, ARequiredServerThatFailsStopsTheRun) {
  json hang = Node({kFake, "hang"});
  hang["startup_timeout_ms"] = 300;
  hang["required"] = true;
  Configure({{"hang", hang}});
  auto run = Ikigai({"-p", "mcp-plain"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("MCP server 'hang' (required) failed to start"), std::string::npos)
      << run.err;
  EXPECT_TRUE(Requests().empty());
}

TEST_F(McpOneShotTest, AServerThatCrashesMidCallGivesAnErrorAndIsStartedAgain) {
  Configure({{"fake", Node({kFake, "ok", home_ / "crash-marker"})}});
  auto run = Ikigai({"-p", "mcp-crash"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "It came back.\n");
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 3u);
  const json first = ResultFor(requests[1], "call_crash1");
  EXPECT_EQ(first["tool_success"], false);
  EXPECT_EQ(first["error_code"], "TOOL_CRASHED");
  EXPECT_NE(first["error"].get<std::string>().find("exited with code 3"), std::string::npos);
  const json second = ResultFor(requests[2], "call_crash2");
  EXPECT_EQ(second["result"]["output"], "survived") << second;
}

TEST_F(McpOneShotTest, ServerFilesystemListsTheProjectUnderTheSandbox) {
  WriteFile(project() + "/notes.txt", "x");
  Configure({{"fs", Node({kFilesystem, project()})}});
  auto run = Ikigai({"-p", "mcp-list"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const json result = ResultFor(requests[1], "call_list");
  EXPECT_NE(result["result"]["output"].get<std::string>().find("[FILE] notes.txt"),
            std::string::npos)
      << result;
}

TEST_F(McpOneShotTest, ATrustedProjectsMcpJsonIsImported) {
  // Claude Code's file may also name what ikigai cannot use: left out, said.
  WriteFile(project() + "/.mcp.json",
            json{{"mcpServers",
                  {{"everything", Node({kEverything, "stdio"})},
                   {"old", {{"type", "sse"}, {"url", "http://127.0.0.1:1/sse"}}}}}}
                .dump());
  auto run = Ikigai({"tool", "call", "mcp__everything__echo", R"({"message": "from .mcp.json"})"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.json["result"]["output"], "Echo: from .mcp.json");
  EXPECT_NE(run.err.find("/.mcp.json: mcpServers.old: left out: type \"sse\""), std::string::npos)
      << run.err;
  // Untrusted, it is skipped: the tool does not exist.
  ASSERT_TRUE(session::ProjectStore(home_ / ".ikigai/projects.json").SetTrusted(project(), false));
  auto untrusted = Ikigai({"tool", "call", "mcp__everything__echo", R"({"message": "x"})"});
  EXPECT_NE(untrusted.exit_code, 0);
  EXPECT_NE(untrusted.out.find("TOOL_NOT_FOUND"), std::string::npos) << untrusted.out;
}

// A server may widen its own sandbox, but never to what no tool may write:
// the home directory, what holds it, a secret; nothing is made outside.
TEST_F(McpOneShotTest, AServersWritableDirectoriesAreCheckedAsWritableRootsAre) {
  for (const std::string& dir : {std::string("~/"), std::string("~/.ssh/keys"), std::string("/")}) {
    json everything = Node({kEverything, "stdio"});
    everything["sandbox"] = {{"writable", {dir}}};
    Configure({{"everything", everything}});
    auto run = Ikigai({"-p", "mcp-plain"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("MCP server 'everything' is not available: sandbox.writable: "),
              std::string::npos)
        << dir << ": " << run.err;
    EXPECT_NE(run.err.find("is not allowed: "), std::string::npos) << dir << ": " << run.err;
  }
  struct stat ignored;
  EXPECT_NE(::stat((home_ / ".ssh/keys").c_str(), &ignored), 0) << "made outside the sandbox";
}

TEST_F(McpOneShotTest, ABadServerConfigNamesTheServerAndTheField) {
  Configure({{"everything", {{"command", "node"}, {"args", "not a list"}}}});
  auto run = Ikigai({"-p", "mcp-plain"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("config.json: mcp_servers.everything.args: must be a list of strings, "
                         "got \"not a list\""),
            std::string::npos)
      << run.err;
  Configure({{"a__b", Node({kEverything})}});
  run = Ikigai({"-p", "mcp-plain"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("mcp_servers.a__b: \"__\" is not allowed in a server name"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace ikigai::mcpclient
