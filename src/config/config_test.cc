#include "config/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/keys.h"
#include "testing/tool_runner.h"

namespace ikigai::config {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;
using testing::WriteFile;

EnvLookup NoEnvironment() {
  return [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
}

EnvLookup Environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class ConfigTest : public ::testing::Test {
 protected:
  ConfigFiles Files() const {
    return {dir_ / "system.json", dir_ / "user.json", dir_ / "project.json"};
  }
  std::string Path(const std::string& layer) const { return dir_ / (layer + ".json"); }
  void Write(const std::string& layer, const std::string& json) { WriteFile(Path(layer), json); }

  Config Load(const EnvLookup& env = NoEnvironment()) {
    auto config = LoadConfig(Files(), env);
    EXPECT_TRUE(config.ok()) << config.error();
    return config.ok() ? *config : Config{};
  }
  std::string LoadError(const EnvLookup& env = NoEnvironment()) {
    auto config = LoadConfig(Files(), env);
    EXPECT_FALSE(config.ok());
    return config.ok() ? std::string() : config.error();
  }

  TempDir dir_;
};

TEST_F(ConfigTest, DefaultsWithoutAnyFile) {
  const Config config = Load();
  EXPECT_EQ(config.tools.defaults.timeout, milliseconds(30000));
  EXPECT_EQ(config.tools.defaults.output_limit, 65536u);
  EXPECT_EQ(config.tools.defaults.stderr_limit, 8192u);
  // Builds and tests take minutes: bash gets ten; a subagent (task) thirty;
  // ask_user waits for the user (AskUserWaitsADay).
  ASSERT_EQ(config.tools.per_tool.size(), 3u);
  EXPECT_EQ(config.tools.per_tool.at("bash").timeout, milliseconds(600000));
  EXPECT_EQ(config.tools.per_tool.at("bash").output_limit, 65536u);
  EXPECT_EQ(config.tools.per_tool.at("task").timeout, milliseconds(1800000));
  EXPECT_EQ(config.schema_timeout, milliseconds(1000));
}

TEST_F(ConfigTest, BashKeepsTenMinutesUnlessToldOrTheDefaultIsLonger) {
  Write("user", R"({"tools": {"bash": {"timeout_ms": 5000}}})");
  EXPECT_EQ(Load().tools.per_tool.at("bash").timeout, milliseconds(5000));
  Write("user", R"({"tool_timeout_ms": 60000})");
  EXPECT_EQ(Load().tools.per_tool.at("bash").timeout, milliseconds(600000));
  Write("user", R"({"tool_timeout_ms": 3600000})");
  EXPECT_EQ(Load().tools.per_tool.at("bash").timeout, milliseconds(3600000));
}

TEST_F(ConfigTest, EmptyPathsAreSkipped) {
  auto config = LoadConfig(ConfigFiles{}, NoEnvironment());
  ASSERT_TRUE(config.ok()) << config.error();
  EXPECT_EQ(config->tools.defaults.timeout, milliseconds(30000));
}

TEST_F(ConfigTest, SystemFileSetsValues) {
  Write("system", R"({"tool_timeout_ms": 5000, "tool_output_limit_bytes": 1024,
                      "schema_timeout_ms": 250})");
  const Config config = Load();
  EXPECT_EQ(config.tools.defaults.timeout, milliseconds(5000));
  EXPECT_EQ(config.tools.defaults.output_limit, 1024u);
  EXPECT_EQ(config.schema_timeout, milliseconds(250));
}

TEST_F(ConfigTest, EachLayerOverridesThePreviousKeyByKey) {
  Write("system", R"({"tool_timeout_ms": 1000, "tool_output_limit_bytes": 1000,
                      "schema_timeout_ms": 1000})");
  Write("user", R"({"tool_timeout_ms": 2000, "tool_output_limit_bytes": 2000})");
  Write("project", R"({"tool_timeout_ms": 3000})");
  Config config = Load();
  EXPECT_EQ(config.tools.defaults.timeout, milliseconds(3000));  // project
  EXPECT_EQ(config.tools.defaults.output_limit, 2000u);          // user
  EXPECT_EQ(config.schema_timeout, milliseconds(1000));          // system

  config = Load(Environment({{"IKIGAI_TOOL_TIMEOUT_MS", "4000"}}));
  EXPECT_EQ(config.tools.defaults.timeout, milliseconds(4000));  // environment, last
  EXPECT_EQ(config.tools.defaults.output_limit, 2000u);
}

TEST_F(ConfigTest, EnvironmentOverridesDefaults) {
  EXPECT_EQ(Load(Environment({{"IKIGAI_TOOL_TIMEOUT_MS", "1500"}})).tools.defaults.timeout,
            milliseconds(1500));
  // Empty counts as unset.
  EXPECT_EQ(Load(Environment({{"IKIGAI_TOOL_TIMEOUT_MS", ""}})).tools.defaults.timeout,
            milliseconds(30000));
}

TEST_F(ConfigTest, BadEnvironmentValueIsAnError) {
  EXPECT_EQ(LoadError(Environment({{"IKIGAI_TOOL_TIMEOUT_MS", "10s"}})),
            "environment variable IKIGAI_TOOL_TIMEOUT_MS: must be a positive integer, got \"10s\"");
  EXPECT_EQ(LoadError(Environment({{"IKIGAI_TOOL_TIMEOUT_MS", "0"}})),
            "environment variable IKIGAI_TOOL_TIMEOUT_MS: must be a positive integer, got 0");
}

TEST_F(ConfigTest, PerToolOverridesFallBackOnTheFinalDefaults) {
  Write("user", R"({"tools": {"bash": {"timeout_ms": 120000},
                              "grep": {"output_limit_bytes": 4096}}})");
  Write("project", R"({"tool_output_limit_bytes": 100000,
                       "tools": {"bash": {"output_limit_bytes": 200000}}})");
  const Config config = Load(Environment({{"IKIGAI_TOOL_TIMEOUT_MS", "7000"}}));
  ASSERT_EQ(config.tools.per_tool.size(), 4u);  // ask_user, bash, grep, task
  const executor::Limits& bash = config.tools.per_tool.at("bash");
  EXPECT_EQ(bash.timeout, milliseconds(120000));  // user, kept under the project's file
  EXPECT_EQ(bash.output_limit, 200000u);          // project
  const executor::Limits& grep = config.tools.per_tool.at("grep");
  EXPECT_EQ(grep.timeout, milliseconds(7000));  // the global default, set later
  EXPECT_EQ(grep.output_limit, 4096u);
  EXPECT_EQ(config.tools.defaults.output_limit, 100000u);
}

TEST_F(ConfigTest, UnknownKeyNamesFileAndKey) {
  Write("user", R"({"tool_timeout": 5})");
  EXPECT_EQ(LoadError(),
            Path("user") +
                ": tool_timeout: unknown key (known here: agents_md, anthropic, "
                "compact_threshold_percent, context_window, gemini, hooks, max_rounds, max_tokens, "
                "mcp_servers, model, openai, permissions, provider, reasoning_effort, sandbox, "
                "schema_timeout_ms, system_prompt, tool_output_limit_bytes, "
                "tool_timeout_ms, tools, web_fetch, web_search)");
  Write("user", R"({"tools": {"bash": {"timeout": 5}}})");
  EXPECT_EQ(LoadError(), Path("user") +
                             ": tools.bash.timeout: unknown key (known here: "
                             "output_limit_bytes, timeout_ms)");
}

TEST_F(ConfigTest, BadValuesNameFileAndKey) {
  struct Case {
    const char* json;
    const char* error;
  };
  const Case cases[] = {
      {R"({"tools": {"bash": {"timeout_ms": "10"}}})",
       R"(tools.bash.timeout_ms: must be a positive integer, got "10")"},
      {R"({"tool_timeout_ms": 0})", "tool_timeout_ms: must be a positive integer, got 0"},
      {R"({"tool_timeout_ms": -5})", "tool_timeout_ms: must be a positive integer, got -5"},
      {R"({"tool_timeout_ms": 1.5})", "tool_timeout_ms: must be a positive integer, got 1.5"},
      {R"({"tool_timeout_ms": null})", "tool_timeout_ms: must be a positive integer, got null"},
      {R"({"tool_output_limit_bytes": 16777217})",
       "tool_output_limit_bytes: must be at most 16777216, got 16777217"},
      {R"({"tools": 5})", "tools: must be an object, got 5"},
      {R"({"tools": {"bash": []}})", "tools.bash: must be an object, got []"},
      {R"({"tools": {"file-read": {"timeout_ms": 5}}})",
       "tools.file-read: not a tool name (tool names use underscores: file_read)"},
  };
  for (const Case& c : cases) {
    Write("project", c.json);
    EXPECT_EQ(LoadError(), Path("project") + ": " + c.error) << c.json;
  }
}

TEST_F(ConfigTest, InvalidJsonNamesFileAndPosition) {
  Write("system", "{\n  \"tool_timeout_ms\": 5,\n}\n");
  const std::string error = LoadError();
  EXPECT_TRUE(error.starts_with(Path("system") + ": invalid JSON: parse error at line 3, column 1"))
      << error;
}

TEST_F(ConfigTest, TopLevelMustBeAnObject) {
  Write("user", "[1, 2]");
  EXPECT_EQ(LoadError(), Path("user") + ": must be a JSON object, got array");
}

TEST_F(ConfigTest, UnreadableFileIsAnError) {
  ::mkdir(Path("project").c_str(), 0755);  // a directory where the file should be
  EXPECT_EQ(LoadError(), Path("project") + ": a directory, not a regular file");
}

TEST(ConfigFilesTest, DefaultLocations) {
  const ConfigFiles files = DefaultConfigFiles();
  EXPECT_TRUE(files.system.ends_with("/etc/ikigai/config.json")) << files.system;
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    EXPECT_EQ(files.user, std::string(home) + "/.ikigai/config.json");
  }
  EXPECT_EQ(files.project, std::filesystem::current_path().string() + "/.ikigai/config.json");
}

TEST(ConfigKeysTest, EveryKeyIsDocumented) {
  const auto doc_path =
      std::filesystem::path(__FILE__).parent_path() / "../../docs/configuration.md";
  std::ifstream in(doc_path);
  ASSERT_TRUE(in) << doc_path;
  std::stringstream doc;
  doc << in.rdbuf();
  for (const Key& key : AllKeys()) {
    const std::string row = "| `" + std::string(key.path) + "` | " + std::string(key.default_value);
    EXPECT_NE(doc.str().find(row), std::string::npos) << "docs/configuration.md lacks: " << row;
    if (!key.env.empty()) {
      EXPECT_NE(doc.str().find("`" + std::string(key.env) + "`"), std::string::npos) << key.env;
    }
  }
}

TEST(ConfigKeysTest, EnvironmentVariablesOnlyForPlainKeys) {
  // A <placeholder> key has no name to apply an environment value to.
  for (const Key& key : AllKeys()) {
    if (!key.env.empty()) {
      EXPECT_EQ(key.path.find('<'), std::string_view::npos) << key.path;
    }
  }
}

TEST_F(ConfigTest, SafetyKeysHaveSafeDefaults) {
  const Config config = Load();
  EXPECT_EQ(config.permissions.mode, "ask");
  EXPECT_TRUE(config.permissions.allow.empty());
  EXPECT_TRUE(config.permissions.deny.empty());
  EXPECT_FALSE(config.sandbox.network);
  EXPECT_TRUE(config.sandbox.writable_roots.empty());
  EXPECT_TRUE(config.tools.env_passthrough.empty());
}

TEST_F(ConfigTest, ListsAddUpAcrossLayersSoAProjectCannotDropTheUsersDenyRules) {
  Write("user", R"J({"permissions": {"deny": ["bash(git push:*)"], "allow": ["grep"]}})J");
  Write("project", R"J({"permissions": {"deny": ["bash(rm:*)"], "mode": "auto-edit"},
                       "sandbox": {"writable_roots": ["/opt/cache"], "network": true},
                       "tools": {"env_passthrough": ["GITHUB_TOKEN"]}})J");
  const Config config = Load(Environment({{"IKIGAI_PERMISSIONS", "read-only"}}));
  EXPECT_EQ(config.permissions.deny, (std::vector<std::string>{"bash(git push:*)", "bash(rm:*)"}));
  EXPECT_EQ(config.permissions.allow, (std::vector<std::string>{"grep"}));
  EXPECT_EQ(config.permissions.mode, "read-only");  // the environment comes last
  EXPECT_EQ(config.sandbox.writable_roots, (std::vector<std::string>{"/opt/cache"}));
  EXPECT_TRUE(config.sandbox.network);
  EXPECT_EQ(config.tools.env_passthrough, (std::vector<std::string>{"GITHUB_TOKEN"}));
}

// The web tools' settings reach them as variables; a later layer may turn
// one off again.
TEST_F(ConfigTest, WebToolSettingsBecomeTheirVariables) {
  EXPECT_TRUE(Load().tools.tool_env.empty());
  Write("user", R"J({"web_fetch": {"allow_private_networks": true},
                    "web_search": {"provider": "searxng", "searxng_url": "http://localhost:8888"}})J");
  Config config = Load();
  EXPECT_EQ(config.tools.tool_env["web_fetch"],
            (std::map<std::string, std::string>{{"IKIGAI_WEB_FETCH_ALLOW_PRIVATE_NETWORKS", "1"}}));
  EXPECT_EQ(config.tools.tool_env["web_search"],
            (std::map<std::string, std::string>{
                {"IKIGAI_WEB_SEARCH_PROVIDER", "searxng"},
                {"IKIGAI_WEB_SEARCH_SEARXNG_URL", "http://localhost:8888"}}));
  Write("project", R"J({"web_fetch": {"allow_private_networks": false}})J");
  EXPECT_TRUE(Load().tools.tool_env["web_fetch"].empty());
  Write("project", R"J({"web_search": {"provider": "google"}})J");
  EXPECT_EQ(LoadError(), Path("project") +
                             ": web_search.provider: must be one of tavily brave searxng, got "
                             "\"google\"");
}

// ask_user waits for a person: the longest deadline unless told otherwise.
TEST_F(ConfigTest, AskUserWaitsADay) {
  EXPECT_EQ(Load().tools.per_tool.at("ask_user").timeout, std::chrono::hours(24));
}

TEST_F(ConfigTest, BadSafetyValuesAreErrorsNamingTheKey) {
  Write("user", R"({"permissions": {"mode": "yolo"}})");
  EXPECT_EQ(LoadError(), Path("user") +
                             ": permissions.mode: must be one of read-only ask auto-edit auto "
                             "unrestricted, got \"yolo\"");
  Write("user", R"({"permissions": {"allow": "bash"}})");
  EXPECT_EQ(LoadError(), Path("user") +
                             ": permissions.allow: must be a list of strings, e.g. [\"a\", "
                             "\"b\"], got \"bash\"");
  Write("user", R"({"sandbox": {"writable_roots": [3]}})");
  EXPECT_NE(LoadError().find("sandbox.writable_roots: must be a list of strings"),
            std::string::npos);
}

// A repository decides what its .ikigai/config.json is.
TEST_F(ConfigTest, AFifoConfigIsAnErrorNotAHang) {
  ASSERT_EQ(::mkfifo(Path("project").c_str(), 0600), 0);
  EXPECT_NE(LoadError().find("a FIFO, not a regular file"), std::string::npos);
}

TEST_F(ConfigTest, AHugeConfigIsAnError) {
  Write("project", "{}");
  std::filesystem::resize_file(Path("project"), 100 * 1024 * 1024);
  EXPECT_EQ(LoadError(), Path("project") + ": larger than 1 MB");
}

TEST(ProjectConfigTest, AProjectConfigLinkedOutsideTheProjectIsNotRead) {
  TempDir project, elsewhere;
  WriteFile(elsewhere / "config.json", R"({"openai": {"base_url": "http://evil.example"}})");
  std::filesystem::create_directories(project / ".ikigai");
  std::filesystem::create_symlink(elsewhere / "config.json", project / ".ikigai/config.json");
  auto config = LoadConfig({"", "", project / ".ikigai/config.json"}, NoEnvironment());
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.error().find("leads outside the project"), std::string::npos) << config.error();
}

TEST_F(ConfigTest, EmptyToolsObjectChangesNothing) {
  Write("project", R"({"tools": {}})");
  EXPECT_EQ(Load().tools.per_tool.size(), 3u);  // ask_user's, bash's and task's own defaults
}

}  // namespace
}  // namespace ikigai::config

namespace ikigai::config {
namespace {

class AgentConfigTest : public ::testing::Test {
 protected:
  ConfigFiles Files() const { return {"", dir_ / "user.json", dir_ / "project.json"}; }
  testing::TempDir dir_;
};

TEST_F(AgentConfigTest, FilesThenEnvironmentSetProviderModelKeysAndUrls) {
  testing::WriteFile(dir_ / "user.json",
                     R"({"provider": "openai", "model": "from-file", "max_rounds": 7,
                         "openai": {"base_url": "http://127.0.0.1:9/v1"},
                         "anthropic": {"api_key": "file-key"}, "agents_md": false,
                         "system_prompt": "Be terse."})");
  auto config = LoadConfig(Files(), [](const std::string& name) -> std::optional<std::string> {
    if (name == "IKIGAI_MODEL") return "from-env";
    if (name == "OPENAI_API_KEY") return "env-key";
    return std::nullopt;
  });
  ASSERT_TRUE(config.ok()) << config.error();
  const AgentConfig& agent = config->agent;
  EXPECT_EQ(agent.provider, "openai");
  EXPECT_EQ(agent.model, "from-env");  // the environment comes after the files
  EXPECT_EQ(agent.max_rounds, 7);
  EXPECT_EQ(agent.openai_base_url, "http://127.0.0.1:9/v1");
  EXPECT_EQ(agent.openai_api_key, "env-key");
  EXPECT_EQ(agent.anthropic_api_key, "file-key");
  EXPECT_EQ(agent.anthropic_base_url, "https://api.anthropic.com");
  EXPECT_FALSE(agent.agents_md);
  EXPECT_EQ(agent.system_prompt, "Be terse.");
}

TEST_F(AgentConfigTest, GeminiFromAFileAndFromTheEnvironment) {
  testing::WriteFile(dir_ / "user.json",
                     R"({"provider": "gemini", "gemini": {"api_key": "file-key"}})");
  auto config = LoadConfig(Files(), [](const std::string& name) -> std::optional<std::string> {
    if (name == "GOOGLE_GEMINI_BASE_URL") return "http://127.0.0.1:9";
    return std::nullopt;
  });
  ASSERT_TRUE(config.ok()) << config.error();
  EXPECT_EQ(config->agent.provider, "gemini");
  EXPECT_EQ(config->agent.gemini_api_key, "file-key");
  EXPECT_EQ(config->agent.gemini_base_url, "http://127.0.0.1:9");

  auto defaults = LoadConfig({"", "", ""}, [](const std::string& name) {
    return name == "GEMINI_API_KEY" ? std::optional<std::string>("env-key") : std::nullopt;
  });
  ASSERT_TRUE(defaults.ok()) << defaults.error();
  EXPECT_EQ(defaults->agent.gemini_api_key, "env-key");
  EXPECT_EQ(defaults->agent.gemini_base_url, "https://generativelanguage.googleapis.com");
}

TEST_F(AgentConfigTest, ProviderMustBeAKnownOne) {
  testing::WriteFile(dir_ / "project.json", R"({"provider": "mistral"})");
  auto config =
      LoadConfig(Files(), [](const std::string&) { return std::optional<std::string>(); });
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error(), dir_ / "project.json" +
                                ": provider: must be one of openai anthropic gemini, got "
                                "\"mistral\"");
  auto from_env =
      LoadConfig({"", "", ""}, [](const std::string& name) -> std::optional<std::string> {
        if (name == "IKIGAI_PROVIDER") return "nope";
        return std::nullopt;
      });
  ASSERT_FALSE(from_env.ok());
  EXPECT_NE(from_env.error().find("IKIGAI_PROVIDER"), std::string::npos) << from_env.error();
}

}  // namespace
}  // namespace ikigai::config
