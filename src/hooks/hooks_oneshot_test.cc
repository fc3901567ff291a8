// Hooks end to end: the real `ikigai -p` against aimock (OpenAI's API),
// with hooks in the user's configuration that write what they are given
// to files in the project. What the model saw is read in aimock's journal.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "providers/testing/aimock_server.h"
#include "session/project_store.h"
#include "testing/tool_runner.h"

namespace ikigai::hooks {
namespace {

using nlohmann::json;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::ReadFile;
using testing::TempDir;
using testing::ToolRun;
using testing::WriteFile;
using Env = std::vector<std::pair<std::string, std::string>>;

const std::string kIkigai = IKIGAI_BIN;

constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"toolCallId": "call_hk"}, "response": {"content": "done with bash"}},
  {"match": {"toolCallId": "call_hk_glob"}, "response": {"content": "done with both"}},
  {"match": {"userMessage": "hk-bash"},
   "response": {"toolCalls": [{"id": "call_hk", "name": "bash", "arguments": {"command": "touch ran.txt; echo ran-42"}}]}},
  {"match": {"userMessage": "hk-two"},
   "response": {"toolCalls": [
     {"id": "call_hk_bash", "name": "bash", "arguments": {"command": "echo two"}},
     {"id": "call_hk_glob", "name": "glob", "arguments": {"pattern": "*.none"}}]}},
  {"match": {"userMessage": "hk-plain"}, "response": {"content": "plain answer"}}
]})";

class HooksOneShotTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    std::filesystem::create_directories(home_ / ".ikigai");
    std::filesystem::create_directories(project());
  }

  std::string project() const { return home_ / "project"; }
  std::string InProject(const std::string& name) const { return project() + "/" + name; }
  bool Exists(const std::string& name) const { return std::filesystem::exists(InProject(name)); }
  json ReadJson(const std::string& name) const {
    return json::parse(ReadFile(InProject(name)), nullptr, false);
  }

  // The user's configuration: `hooks` is the "hooks" object.
  void UserHooks(const std::string& hooks, const std::string& more = "") const {
    WriteFile(home_ / ".ikigai/config.json", "{" + more + "\"hooks\": " + hooks + "}");
  }

  ToolRun Ikigai(const std::string& prompt, const std::string& mode = "auto",
                 const std::vector<std::string>& extra = {}) const {
    Env env = {{"HOME", home_.path()},
               {"OPENAI_API_KEY", AimockServer::kApiKey},
               {"OPENAI_BASE_URL", aimock_->openai_base_url()},
               {"ANTHROPIC_API_KEY", ""},
               {"GEMINI_API_KEY", ""},
               {"ANTHROPIC_BASE_URL", ""},
               {"GOOGLE_GEMINI_BASE_URL", ""},
               {"IKIGAI_PROVIDER", ""},
               {"IKIGAI_MODEL", ""},
               {"IKIGAI_TOOL_TIMEOUT_MS", ""},
               {"IKIGAI_PERMISSIONS", mode}};
    std::vector<std::string> argv = {"--provider", "openai"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"-p", prompt, "--output", "json"});
    return testing::RunExecutable(
        kIkigai, "",
        {.argv_extra = argv, .env = env, .cwd = project(), .timeout = std::chrono::seconds(60)});
  }

  static std::vector<json> Requests() {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    std::vector<json> bodies;
    if (journal) {
      for (const json& entry : *journal) bodies.push_back(entry["body"]);
    }
    return bodies;
  }
  // What the model saw as the result of `call_id` in the last request.
  static json ResultFor(const std::string& call_id) {
    const auto requests = Requests();
    if (requests.empty()) return json();
    for (const json& message : requests.back()["messages"]) {
      if (message["role"] == "tool" && message["tool_call_id"] == call_id) {
        return json::parse(message["content"].get<std::string>(), nullptr, false);
      }
    }
    ADD_FAILURE() << "no result for " << call_id << " in " << requests.back().dump();
    return json();
  }
  static std::string LastUserMessage() {
    const auto requests = Requests();
    if (requests.empty()) return "";
    std::string text;
    for (const json& message : requests.back()["messages"]) {
      if (message["role"] == "user" && message["content"].is_string()) text = message["content"];
    }
    return text;
  }

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  TempDir home_;
};

TEST_F(HooksOneShotTest, EveryEventGetsItsInputAsJsonOnStdin) {
  UserHooks(R"({"SessionStart": [{"command": "cat > session-start.json"}],
                "UserPromptSubmit": [{"command": "cat > prompt.json"}],
                "PreToolUse": [{"matcher": "bash", "command": "cat > pre.json"}],
                "PostToolUse": [{"matcher": "bash", "command": "cat > post.json"}],
                "Stop": [{"command": "cat > stop.json"}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(run.json.is_object()) << run.out;
  const std::string session = run.json.value("session", "");
  ASSERT_FALSE(session.empty());
  char cwd[4096];
  ASSERT_NE(::realpath(project().c_str(), cwd), nullptr);

  const json start = ReadJson("session-start.json");
  EXPECT_EQ(start["hook_event_name"], "SessionStart");
  EXPECT_EQ(start["source"], "startup");
  EXPECT_EQ(start["session_id"], session);
  EXPECT_EQ(start["cwd"], cwd);
  EXPECT_EQ(start["permission_mode"], "auto");
  EXPECT_TRUE(start["transcript_path"].get<std::string>().ends_with(".jsonl")) << start;

  const json prompt = ReadJson("prompt.json");
  EXPECT_EQ(prompt["hook_event_name"], "UserPromptSubmit");
  EXPECT_EQ(prompt["prompt"], "hk-bash");
  EXPECT_EQ(prompt["session_id"], session);

  const json pre = ReadJson("pre.json");
  EXPECT_EQ(pre["hook_event_name"], "PreToolUse");
  EXPECT_EQ(pre["tool_name"], "bash");
  EXPECT_EQ(pre["tool_input"]["command"], "touch ran.txt; echo ran-42");
  EXPECT_EQ(pre["tool_use_id"], "call_hk");
  EXPECT_EQ(pre["session_id"], session);

  const json post = ReadJson("post.json");
  EXPECT_EQ(post["hook_event_name"], "PostToolUse");
  EXPECT_EQ(post["tool_name"], "bash");
  EXPECT_EQ(post["tool_input"]["command"], "touch ran.txt; echo ran-42");
  EXPECT_EQ(post["tool_response"]["tool_success"], true) << post;
  EXPECT_NE(post["tool_response"].dump().find("ran-42"), std::string::npos) << post;

  const json stop = ReadJson("stop.json");
  EXPECT_EQ(stop["hook_event_name"], "Stop");
  EXPECT_EQ(stop["last_assistant_message"], "done with bash");
  EXPECT_EQ(stop["stop_hook_active"], false);
  EXPECT_TRUE(Exists("ran.txt"));
}

TEST_F(HooksOneShotTest, PreToolUseExit2BlocksTheCallAndTheModelSeesItsStderr) {
  UserHooks(R"({"PreToolUse": [{"matcher": "bash",
                 "command": "echo 'no bash on Fridays (hook-77)' >&2; exit 2"}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt")) << "the blocked call ran";
  const json result = ResultFor("call_hk");
  EXPECT_EQ(result["tool_success"], false) << result;
  EXPECT_EQ(result["error_code"], "PERMISSION_DENIED") << result;
  EXPECT_NE(result["error"].get<std::string>().find("no bash on Fridays (hook-77)"),
            std::string::npos)
      << result;
}

TEST_F(HooksOneShotTest, AJsonDenyBlocksWithItsReason) {
  UserHooks(
      R"({"PreToolUse": [{"command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"denied-by-json-5\"}}'"}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt"));
  const json result = ResultFor("call_hk");
  EXPECT_EQ(result["tool_success"], false) << result;
  EXPECT_NE(result["error"].get<std::string>().find("denied-by-json-5"), std::string::npos);
}

TEST_F(HooksOneShotTest, TheOlderBlockAnswerDeniesToo) {
  UserHooks(
      R"({"PreToolUse": [{"command": "echo '{\"decision\": \"block\", \"reason\": \"old-shape-9\"}'"}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt"));
  EXPECT_NE(ResultFor("call_hk")["error"].get<std::string>().find("old-shape-9"),
            std::string::npos);
}

TEST_F(HooksOneShotTest, AJsonAllowRunsACallTheModeWouldAskAbout) {
  // In ask mode, -p refuses what needs a question; the hook's allow skips it.
  UserHooks(
      R"({"PreToolUse": [{"matcher": "bash", "command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}'"}]})");
  const ToolRun run = Ikigai("hk-bash", "ask");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Exists("ran.txt")) << run.err;
  EXPECT_EQ(ResultFor("call_hk")["tool_success"], true);
}

TEST_F(HooksOneShotTest, WithoutTheHookTheSameCallIsRefusedInAskMode) {
  // The control for the test above: the allow made the difference.
  const ToolRun run = Ikigai("hk-bash", "ask");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt"));
  EXPECT_EQ(ResultFor("call_hk")["error_code"], "PERMISSION_DENIED");
}

TEST_F(HooksOneShotTest, AnAllowDoesNotBeatADenyRule) {
  UserHooks(
      R"({"PreToolUse": [{"command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}'"}]})",
      R"("permissions": {"deny": ["bash"]}, )");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt"));
  EXPECT_EQ(ResultFor("call_hk")["error_code"], "PERMISSION_DENIED");
}

TEST_F(HooksOneShotTest, AnAskIsRefusedWhereNobodyCanAnswer) {
  UserHooks(
      R"({"PreToolUse": [{"command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"ask-reason-3\"}}'"}]})");
  const ToolRun run = Ikigai("hk-bash", "auto");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt"));
  const json result = ResultFor("call_hk");
  EXPECT_EQ(result["error_code"], "PERMISSION_DENIED") << result;
  EXPECT_NE(result["error"].get<std::string>().find("ask-reason-3"), std::string::npos) << result;
  EXPECT_NE(result["error"].get<std::string>().find("nobody can approve"), std::string::npos)
      << result;
}

TEST_F(HooksOneShotTest, AHangingPreToolUseHookIsStoppedAtItsDeadlineAndBlocks) {
  UserHooks(R"({"PreToolUse": [{"command": "echo $$ > hook.pid; sleep 100", "timeout_ms": 300}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt"));
  const json result = ResultFor("call_hk");
  EXPECT_EQ(result["tool_success"], false);
  EXPECT_NE(result["error"].get<std::string>().find("timed out"), std::string::npos) << result;
  EXPECT_NE(run.err.find("timed out"), std::string::npos) << run.err;  // the user is told
  // Its process group was killed: the shell is gone.
  const std::string pid = ReadFile(InProject("hook.pid"));
  ASSERT_FALSE(pid.empty());
  EXPECT_FALSE(std::filesystem::exists("/proc/" + pid.substr(0, pid.find('\n'))))
      << "the hook still runs";
}

TEST_F(HooksOneShotTest, ACrashingPreToolUseHookBlocksAndSaysSo) {
  UserHooks(R"({"PreToolUse": [{"command": "kill -SEGV $$"}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("ran.txt"));
  const json result = ResultFor("call_hk");
  EXPECT_NE(result["error"].get<std::string>().find("killed by signal"), std::string::npos)
      << result;
  EXPECT_NE(run.err.find("killed by signal"), std::string::npos) << run.err;
}

TEST_F(HooksOneShotTest, OtherExitCodesAreReportedAndIgnored) {
  UserHooks(R"({"PreToolUse": [{"command": "echo 'lint is unhappy-12' >&2; exit 1"}],
                "Stop": [{"command": "exit 3"}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Exists("ran.txt"));
  EXPECT_NE(run.err.find("exited with 1: lint is unhappy-12"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("hook Stop `exit 3` exited with 3"), std::string::npos) << run.err;
}

TEST_F(HooksOneShotTest, MatchersChooseTheHooksOfACall) {
  UserHooks(R"({"PreToolUse": [
      {"matcher": "bash", "command": "cat > by-name.json"},
      {"matcher": "file_read|bash", "command": "cat > by-alternative.json"},
      {"matcher": "*", "command": "cat >> by-star.jsonl"},
      {"command": "cat >> by-nothing.jsonl"},
      {"matcher": "gl*", "command": "cat > by-glob.json"},
      {"matcher": "file_read|file_write", "command": "cat > not-mine.json"}]})");
  const ToolRun run = Ikigai("hk-two");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ReadJson("by-name.json")["tool_name"], "bash");
  EXPECT_EQ(ReadJson("by-alternative.json")["tool_name"], "bash");
  EXPECT_EQ(ReadJson("by-glob.json")["tool_name"], "glob");
  EXPECT_FALSE(Exists("not-mine.json"));
  for (const char* file : {"by-star.jsonl", "by-nothing.jsonl"}) {
    const std::string lines = ReadFile(InProject(file));
    EXPECT_NE(lines.find("\"tool_name\":\"bash\""), std::string::npos) << file << lines;
    EXPECT_NE(lines.find("\"tool_name\":\"glob\""), std::string::npos) << file << lines;
  }
}

TEST_F(HooksOneShotTest, TheHooksOfOneEventRunAtOnce) {
  // Each waits for the other's file: one after the other, the first would
  // wait out its deadline and block the call.
  UserHooks(R"({"PreToolUse": [
      {"command": "touch a.flag; i=0; while [ ! -e b.flag ]; do sleep 0.05; i=$((i+1)); [ $i -lt 200 ] || exit 1; done", "timeout_ms": 30000},
      {"command": "touch b.flag; i=0; while [ ! -e a.flag ]; do sleep 0.05; i=$((i+1)); [ $i -lt 200 ] || exit 1; done", "timeout_ms": 30000}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Exists("ran.txt"));
  EXPECT_EQ(run.err.find("exited with"), std::string::npos) << run.err;
}

TEST_F(HooksOneShotTest, UserPromptSubmitStdoutIsAddedToThePrompt) {
  UserHooks(R"({"UserPromptSubmit": [{"command": "echo 'context-from-hook-88'"}],
                "SessionStart": [{"command": "echo 'context-from-start-31'"}]})");
  const ToolRun run = Ikigai("hk-plain");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string message = LastUserMessage();
  EXPECT_TRUE(message.starts_with("hk-plain")) << message;
  EXPECT_NE(message.find("context-from-hook-88"), std::string::npos) << message;
  EXPECT_NE(message.find("context-from-start-31"), std::string::npos) << message;
}

TEST_F(HooksOneShotTest, UserPromptSubmitExit2RefusesThePromptWithTheReason) {
  UserHooks(
      R"({"UserPromptSubmit": [{"command": "echo 'secrets in the prompt-64' >&2; exit 2"}]})");
  const ToolRun run = Ikigai("hk-plain");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("secrets in the prompt-64"), std::string::npos) << run.err;
  EXPECT_EQ(run.json.value("error_code", ""), "PROMPT_REFUSED") << run.out;
  EXPECT_TRUE(Requests().empty()) << "the refused prompt was sent";
}

TEST_F(HooksOneShotTest, AHangingUserPromptSubmitHookRefusesThePrompt) {
  UserHooks(R"({"UserPromptSubmit": [{"command": "sleep 100", "timeout_ms": 300}]})");
  const ToolRun run = Ikigai("hk-plain");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("timed out"), std::string::npos) << run.err;
  EXPECT_TRUE(Requests().empty());
}

TEST_F(HooksOneShotTest, PostToolUseExit2TellsTheModelBesideTheResult) {
  UserHooks(
      R"({"PostToolUse": [{"matcher": "bash", "command": "echo 'format the file-19' >&2; exit 2"}]})");
  const ToolRun run = Ikigai("hk-bash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = ResultFor("call_hk");
  EXPECT_EQ(result["tool_success"], true) << result;
  EXPECT_EQ(result["hook_feedback"], "format the file-19") << result;
}

TEST_F(HooksOneShotTest, AnUntrustedProjectsHooksDoNotRun) {
  std::filesystem::create_directories(InProject(".ikigai"));
  WriteFile(InProject(".ikigai/config.json"),
            R"({"hooks": {"UserPromptSubmit": [{"command": "touch project-hook-ran"}]}})");
  const ToolRun run = Ikigai("hk-plain");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(Exists("project-hook-ran"));
  // Trusted, they do.
  ASSERT_TRUE(session::ProjectStore(home_ / ".ikigai/projects.json").SetTrusted(project(), true));
  const ToolRun trusted = Ikigai("hk-plain");
  ASSERT_EQ(trusted.exit_code, 0) << trusted.err;
  EXPECT_TRUE(Exists("project-hook-ran"));

  // The repository's hooks change: not run until the folder is trusted again.
  WriteFile(InProject(".ikigai/config.json"),
            R"({"hooks": {"UserPromptSubmit": [{"command": "touch changed-hook-ran"}]}})");
  const ToolRun changed = Ikigai("hk-plain");
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_FALSE(Exists("changed-hook-ran"));
  EXPECT_NE(changed.err.find("its hooks changed since you trusted this folder"), std::string::npos)
      << changed.err;
  ASSERT_TRUE(session::ProjectStore(home_ / ".ikigai/projects.json").SetTrusted(project(), true));
  ASSERT_EQ(Ikigai("hk-plain").exit_code, 0);
  EXPECT_TRUE(Exists("changed-hook-ran"));
}

TEST_F(HooksOneShotTest, SessionStartSaysWhetherTheSessionIsNewOrResumed) {
  UserHooks(R"({"SessionStart": [{"command": "cat > session-start.json"}]})");
  const ToolRun first = Ikigai("hk-plain");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(ReadJson("session-start.json")["source"], "startup");
  const std::string session = first.json.value("session", "");
  ASSERT_FALSE(session.empty()) << first.out;
  const ToolRun resumed = Ikigai("hk-plain", "auto", {"--resume", session});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const nlohmann::json start = ReadJson("session-start.json");
  EXPECT_EQ(start["source"], "resume");
  EXPECT_EQ(start["session_id"], session);
}

TEST_F(HooksOneShotTest, HooksRunUnderTheToolSandbox) {
  UserHooks(
      R"({"UserPromptSubmit": [{"command": "printf %s \"$IKIGAI_SANDBOX\" > sandbox.json"}]})");
  const ToolRun run = Ikigai("hk-plain");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json sandbox = ReadJson("sandbox.json");
  ASSERT_TRUE(sandbox.is_object()) << ReadFile(InProject("sandbox.json"));
  EXPECT_EQ(sandbox["access"], "workspace-write") << sandbox;
  // Unrestricted, it runs unconfined, as tools do.
  const ToolRun unconfined = Ikigai("hk-plain", "unrestricted");
  ASSERT_EQ(unconfined.exit_code, 0) << unconfined.err;
  EXPECT_EQ(ReadFile(InProject("sandbox.json")), "");
}

TEST_F(HooksOneShotTest, ABadHookConfigurationStopsIkigaiNamingTheFileAndKey) {
  UserHooks(R"({"PreToolUs": [{"command": "true"}]})");
  ToolRun run = Ikigai("hk-plain");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(".ikigai/config.json: hooks.PreToolUs: unknown hook event"),
            std::string::npos)
      << run.err;
  UserHooks(R"({"PreToolUse": [{"command": "true", "timeout": 5}]})");
  run = Ikigai("hk-plain");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("hooks.PreToolUse: [0]: unknown field \"timeout\""), std::string::npos)
      << run.err;
  EXPECT_TRUE(Requests().empty());
}

}  // namespace
}  // namespace ikigai::hooks
