#include "config/mcp_servers.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "config/config.h"

namespace ikigai::config {
namespace {

using json = nlohmann::json;

VariableLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(McpServersConfig, ExpandsVariablesWithDefaults) {
  const auto env = Env({{"HOME", "/home/u"}, {"EMPTY", ""}});
  EXPECT_EQ(*ExpandVariables("${HOME}/x", env), "/home/u/x");
  EXPECT_EQ(*ExpandVariables("${NOPE:-fallback}", env), "fallback");
  EXPECT_EQ(*ExpandVariables("${EMPTY:-d}", env), "d");
  EXPECT_EQ(*ExpandVariables("$HOME and $", env), "$HOME and $");
  auto unset = ExpandVariables("${NOPE}", env);
  ASSERT_FALSE(unset);
  EXPECT_EQ(unset.error(), "${NOPE} is not set (set it, or write ${NOPE:-default})");
  EXPECT_FALSE(ExpandVariables("${1X}", env));
  EXPECT_FALSE(ExpandVariables("${OPEN", env));
}

TEST(McpServersConfig, ReadsAStdioServer) {
  const json value = {{"command", "${BIN:-node}"},
                      {"args", {"server.js", "${ROOT}"}},
                      {"env", {{"TOKEN", "${SECRET}"}}},
                      {"env_vars", {"GITHUB_TOKEN"}},
                      {"enabled_tools", {"echo"}},
                      {"disabled_tools", {"add"}},
                      {"startup_timeout_ms", 500},
                      {"tool_timeout_ms", 700},
                      {"output_limit_bytes", 100},
                      {"sandbox", {{"network", true}, {"writable", {"~/.npm"}}}}};
  auto server = ParseMcpServer("files", value, "f.json", Env({{"ROOT", "/r"}, {"SECRET", "s"}}));
  ASSERT_TRUE(server) << server.error();
  EXPECT_EQ(server->command, "node");
  EXPECT_EQ(server->args, (std::vector<std::string>{"server.js", "/r"}));
  EXPECT_EQ(server->env.at("TOKEN"), "s");
  EXPECT_EQ(server->env_vars, std::vector<std::string>{"GITHUB_TOKEN"});
  EXPECT_EQ(*server->enabled_tools, std::vector<std::string>{"echo"});
  EXPECT_EQ(server->disabled_tools, std::vector<std::string>{"add"});
  EXPECT_EQ(server->startup_timeout.count(), 500);
  EXPECT_EQ(server->tool_timeout.count(), 700);
  EXPECT_EQ(server->output_limit, 100u);
  EXPECT_TRUE(server->sandbox_network);
  EXPECT_EQ(server->sandbox_writable, std::vector<std::string>{"~/.npm"});
  EXPECT_TRUE(server->enabled);
  EXPECT_FALSE(server->required);
}

TEST(McpServersConfig, DefaultsAreThoseOfTheIssue) {
  auto server = ParseMcpServer("s", {{"command", "x"}}, "f", Env({}));
  ASSERT_TRUE(server);
  EXPECT_EQ(server->startup_timeout.count(), 30000);
  EXPECT_EQ(server->tool_timeout.count(), 120000);
  EXPECT_FALSE(server->enabled_tools.has_value());
}

TEST(McpServersConfig, ReadsAnHttpServer) {
  auto server = ParseMcpServer("web",
                               {{"url", "http://127.0.0.1:${PORT:-3000}/mcp"},
                                {"headers", {{"X-A", "b"}}},
                                {"bearer_token_env_var", "T"}},
                               "f", Env({}));
  ASSERT_TRUE(server) << server.error();
  EXPECT_TRUE(server->is_http());
  EXPECT_EQ(server->url, "http://127.0.0.1:3000/mcp");
  EXPECT_EQ(server->headers.at("X-A"), "b");
  EXPECT_EQ(server->bearer_token_env_var, "T");
}

TEST(McpServersConfig, ErrorsNameTheServerAndTheField) {
  const auto env = Env({});
  auto error = [&](const std::string& name, const json& value) {
    auto server = ParseMcpServer(name, value, "f", env);
    return server ? std::string("(accepted)") : server.error();
  };
  EXPECT_EQ(error("a__b", {{"command", "x"}}),
            "mcp_servers.a__b: \"__\" is not allowed in a server name (it separates "
            "mcp__SERVER__TOOL); use \"_\" or \"-\"");
  EXPECT_EQ(error("s", {{"command", 3}}), "mcp_servers.s.command: must be a string, got 3");
  EXPECT_EQ(error("s", {{"command", "x"}, {"args", "a b"}}),
            "mcp_servers.s.args: must be a list of strings, got \"a b\"");
  EXPECT_EQ(error("s", {{"command", "x"}, {"tool_timeout_ms", 0}}),
            "mcp_servers.s.tool_timeout_ms: must be a positive integer, got 0");
  EXPECT_EQ(error("s", {{"command", "x"}, {"env", {{"A", 1}}}}),
            "mcp_servers.s.env.A: must be a string, got 1");
  EXPECT_EQ(error("s", {{"command", "${MISSING}"}}),
            "mcp_servers.s.command: ${MISSING} is not set (set it, or write ${MISSING:-default})");
  EXPECT_EQ(error("s", json::object()),
            "mcp_servers.s: needs either \"command\" (a stdio server) or \"url\" (Streamable "
            "HTTP), got neither");
  EXPECT_EQ(error("s", {{"command", "x"}, {"url", "http://h"}}),
            "mcp_servers.s: needs either \"command\" (a stdio server) or \"url\" (Streamable "
            "HTTP), not both");
  EXPECT_EQ(error("s", {{"url", "ftp://h"}}),
            "mcp_servers.s.url: must start with http:// or https://, got \"ftp://h\"");
  EXPECT_EQ(error("s", {{"url", "http://h"}, {"args", {"a"}}}),
            "mcp_servers.s.args: only for stdio servers (this one has \"url\")");
  EXPECT_TRUE(error("s", {{"command", "x"}, {"cmd", "y"}})
                  .starts_with("mcp_servers.s.cmd: unknown field (known here: "));
  EXPECT_EQ(error("s", {{"command", "x"}, {"sandbox", {{"net", true}}}}),
            "mcp_servers.s.sandbox.net: unknown field (known here: network, writable)");
  EXPECT_EQ(error("s", "node x"), "mcp_servers.s: must be an object, got \"node x\"");
}

TEST(McpServersConfig, ImportsClaudeCodesMcpJson) {
  const std::string text = R"({"mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "server-filesystem", "${PWD:-.}"], "env": {"A": "b"}},
    "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"X": "y"}}}})";
  auto parsed = ParseMcpJson(text, ".mcp.json", Env({}));
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& servers = parsed->servers;
  ASSERT_EQ(servers.size(), 2u);
  EXPECT_TRUE(parsed->left_out.empty());
  EXPECT_EQ(servers[0].name, "fs");
  EXPECT_EQ(servers[0].args.back(), ".");
  EXPECT_EQ(servers[0].source, ".mcp.json");
  EXPECT_EQ(servers[1].url, "https://example.com/mcp");
  // What ikigai cannot use is left out with a line; the rest is kept, and
  // another agent's fields are passed over.
  auto mixed = ParseMcpJson(R"({"mcpServers": {
      "old": {"type": "sse", "url": "http://h"},
      "bad": {"command": 3},
      "ok": {"command": "srv", "timeout": 5000}}})",
                            ".mcp.json", Env({}));
  ASSERT_TRUE(mixed) << mixed.error();
  ASSERT_EQ(mixed->servers.size(), 1u);
  EXPECT_EQ(mixed->servers[0].name, "ok");
  ASSERT_EQ(mixed->left_out.size(), 2u);
  EXPECT_TRUE(mixed->left_out[0].starts_with(".mcp.json: mcpServers.bad: left out: "))
      << mixed->left_out[0];
  EXPECT_EQ(mixed->left_out[1],
            ".mcp.json: mcpServers.old: left out: type \"sse\" is not one ikigai speaks "
            "(\"stdio\" or \"http\"; the older HTTP+SSE transport is not supported)");
  auto broken = ParseMcpJson("{", ".mcp.json", Env({}));
  ASSERT_FALSE(broken);
  EXPECT_TRUE(broken.error().starts_with(".mcp.json: invalid JSON"));
}

class McpServersFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("mcp-config-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  std::filesystem::path dir_;
};

TEST_F(McpServersFile, ALaterFileReplacesAServerWhole) {
  ConfigFiles files;
  files.system = Write("system.json", R"({"mcp_servers": {"a": {"command": "x", "args": ["1"]},
                                                            "b": {"command": "y"}}})");
  files.user =
      Write("user.json", R"({"mcp_servers": {"a": {"command": "z"}}, "tool_timeout_ms": 5})");
  auto config = LoadConfig(files, Env({}));
  ASSERT_TRUE(config) << config.error();
  ASSERT_EQ(config->mcp_servers.size(), 2u);
  EXPECT_EQ(config->mcp_servers.at("a").command, "z");
  EXPECT_TRUE(config->mcp_servers.at("a").args.empty());
  EXPECT_EQ(config->mcp_servers.at("a").source, files.user);
  EXPECT_EQ(config->tools.defaults.timeout.count(), 5);
}

TEST_F(McpServersFile, AnErrorNamesTheFileTheServerAndTheField) {
  ConfigFiles files;
  files.user = Write("user.json", R"({"mcp_servers": {"gh": {"command": "x", "enabled": "yes"}}})");
  auto config = LoadConfig(files, Env({}));
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error(),
            files.user + ": mcp_servers.gh.enabled: must be true or false, got \"yes\"");
  files.user = Write("user2.json", R"({"mcp_servers": ["gh"]})");
  config = LoadConfig(files, Env({}));
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error(),
            files.user + ": mcp_servers: must be an object of servers by name, got [\"gh\"]");
}

}  // namespace
}  // namespace ikigai::config
