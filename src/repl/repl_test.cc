// The REPL end to end: the real `ikigai` binary in a pseudo-terminal
// (testing/pty_session.h), against aimock on loopback.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <thread>

#include "providers/testing/aimock_server.h"
#include "repl/testing/pty_session.h"
#include "session/project_store.h"
#include "testing/tool_runner.h"

namespace ikigai::repl {
namespace {

using ikigai::testing::ReadFile;
using ikigai::testing::TempDir;
using ikigai::testing::WriteFile;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::PtyOptions;
using testing::PtySession;
using Env = std::vector<std::pair<std::string, std::string>>;
using namespace std::chrono_literals;

const std::string kIkigai = IKIGAI_BIN;

// toolCallId fixtures first: after a tool round the user message is the same.
constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"userMessage": "## Next steps"},
   "response": {"content": "## Goal\nrepl-summary-abc", "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}}},
  {"match": {"userMessage": "repl-after-compact"}, "response": {"content": "Carried on."}},
  {"match": {"userMessage": "repl-counted"},
   "response": {"content": "Counted.", "usage": {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290}}},
  {"match": {"toolCallId": "call_list"}, "response": {"content": "Listed them."}},
  {"match": {"toolCallId": "call_user"}, "response": {"content": "Thanks for answering."}},
  {"match": {"userMessage": "repl-question"},
   "response": {"toolCalls": [{"id": "call_user", "name": "ask_user",
     "arguments": {"question": "Which database?", "options": ["Postgres", "SQLite"]}}]}},
  {"match": {"toolCallId": "call_plan"}, "response": {"content": "Plan made."}},
  {"match": {"userMessage": "repl-plan"},
   "response": {"toolCalls": [{"id": "call_plan", "name": "todo_write", "arguments": {"todos": [
     {"content": "Read the code", "status": "completed"},
     {"content": "Fix the bug", "status": "in_progress"},
     {"content": "Run the tests", "status": "pending"}]}}]}},
  {"match": {"toolCallId": "call_bg"}, "response": {"content": "It runs."}},
  {"match": {"userMessage": "repl-background"}, "response": {"toolCalls": [{"id": "call_bg",
    "name": "bash", "arguments": {"command": "echo $$ > bg.pid; exec sleep 31.5", "run_in_background": true}}]}},
  {"match": {"toolCallId": "call_long"}, "response": {"content": "never asked"}},
  {"match": {"toolCallId": "call_ask"}, "response": {"content": "Asked and answered."}},
  {"match": {"toolCallId": "call_stop"}, "response": {"content": "never asked"}},
  {"match": {"toolCallId": "call_two_b"}, "response": {"content": "Both answered."}},
  {"match": {"userMessage": "repl-two-asks"},
   "response": {"toolCalls": [{"id": "call_two_a", "name": "bash", "arguments": {"command": "touch first.txt"}},
                              {"id": "call_two_b", "name": "bash", "arguments": {"command": "touch second.txt"}}]}},
  {"match": {"toolCallId": "call_once"}, "response": {"content": "Asked once."}},
  {"match": {"userMessage": "repl-no-always"},
   "response": {"toolCalls": [{"id": "call_once", "name": "bash", "arguments": {"command": "touch \"$(echo once).txt\""}}]}},
  {"match": {"toolCallId": "call_long_write"}, "response": {"content": "Written after a look."}},
  {"match": {"userMessage": "repl-long-write"},
   "response": {"toolCalls": [{"id": "call_long_write", "name": "file_write", "arguments": {"file_path": "long.txt", "content": "l0\nl1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\nl14\nl15\nl16\nl17\nl18\nl19\nl20\nl21\nl22\nl23\nl24\nl25\nl26\nl27\nl28\nl29\nl30\nl31\nl32\nl33\nl34\nl35\nl36\nl37\nl38\nl39\nl40\nl41\nl42\nl43\nl44\nl45\nl46\nl47\nl48\nl49\nl50\nl51\nl52\nl53\nl54\nl55\nl56\nl57\nl58\nl59\nl60\nl61\nl62\nl63\nl64\nl65\nl66\nl67\nl68\nl69\n"}}]}},
  {"match": {"userMessage": "repl-ask"},
   "response": {"toolCalls": [{"id": "call_ask", "name": "bash", "arguments": {"command": "touch approved.txt"}}]}},
  {"match": {"userMessage": "repl-stop"},
   "response": {"toolCalls": [{"id": "call_stop", "name": "bash", "arguments": {"command": "mkdir stopped.d"}}]}},
  {"match": {"userMessage": "repl-stream"}, "latency": 700, "chunkSize": 6,
   "response": {"content": "alpha beta gamma delta epsilon zeta eta theta"}},
  {"match": {"userMessage": "repl-tool"},
   "response": {"toolCalls": [{"id": "call_list", "name": "bash", "arguments": {"command": "echo hi-from-tool"}}]}},
  {"match": {"userMessage": "repl-long"},
   "response": {"toolCalls": [{"id": "call_long", "name": "bash", "arguments": {"command": "echo $$ > shell.pid; sleep 120 & echo $! > sleep.pid; wait"}}]}},
  {"match": {"userMessage": "pasted line one\npasted line two"}, "response": {"content": "Got the paste."}},
  {"match": {"userMessage": "first part\nsecond part"}, "response": {"content": "Got the continuation."}},
  {"match": {"userMessage": "repl-after"}, "response": {"content": "Still here."}},
  {"match": {"toolCallId": "call_hostile"}, "response": {"content": "Hostile done."}},
  {"match": {"userMessage": "repl-hostile-answer"},
   "response": {"content": "clip\u001b]52;c;ZXZpbA==\u0007 title\u001b]0;pwned\u0007 clear\u001b[2J csi\u009b2J end"}},
  {"match": {"userMessage": "repl-hostile-call"},
   "response": {"toolCalls": [{"id": "call_hostile", "name": "bash", "arguments": {"command": "echo hi #\u001b[2K\u001b[1G[tool] bash: ls"}}]}},
  {"match": {"userMessage": "repl-hello"}, "response": {"content": "Hello from the mock."}}
]})";

class ReplTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);  // fresh sequences and journal
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    ::mkdir(home().c_str(), 0755);
    ::mkdir(project().c_str(), 0755);
  }

  std::string home() const { return dir_ / "home"; }
  std::string project() const { return dir_ / "project"; }

  // A clean environment: no key from the test process leaks in.
  Env BaseEnv() const {
    const char* path = std::getenv("PATH");
    return {{"PATH", path != nullptr ? path : "/usr/bin:/bin"},
            {"HOME", home()},
            {"TERM", "xterm-256color"},
            {"LANG", "C.UTF-8"},
            {"NO_PROXY", "127.0.0.1"},
            {"IKIGAI_PERMISSIONS", "auto"}};
  }
  Env ProviderEnv() const {
    Env env = BaseEnv();
    env.emplace_back("OPENAI_API_KEY", AimockServer::kApiKey);
    env.emplace_back("OPENAI_BASE_URL", aimock_->openai_base_url());
    return env;
  }

  // The default mode, where commands ask (the others run in auto).
  Env AskModeEnv() const {
    Env env = ProviderEnv();
    for (auto& [name, value] : env) {
      if (name == "IKIGAI_PERMISSIONS") value = "ask";
    }
    return env;
  }

  std::unique_ptr<PtySession> Start(const Env& env, const std::vector<std::string>& args = {}) {
    auto session =
        PtySession::Start(kIkigai, PtyOptions{.args = args, .env = env, .cwd = project()});
    EXPECT_TRUE(session) << session.error();
    return session ? std::move(*session) : nullptr;
  }

  // The last request's messages, as aimock journaled them (OpenAI shape).
  nlohmann::json LastRequest() const {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    if (!journal || journal->empty()) return nlohmann::json::object();
    return journal->back()["body"];
  }

  // The project's .ikigai/ loads only in a trusted folder: trust it as
  // `ikigai trust` would.
  void TrustProject() const {
    ASSERT_TRUE(
        session::ProjectStore(home() + "/.ikigai/projects.json").SetTrusted(project(), true));
  }

  void WriteProjectTool(const std::string& name, const std::string& body) const {
    TrustProject();
    ::mkdir((project() + "/.ikigai").c_str(), 0755);
    ::mkdir((project() + "/.ikigai/tools").c_str(), 0755);
    WriteFile(project() + "/.ikigai/tools/" + name + "-tool", "#!/bin/sh\n" + body, 0755);
  }

  static std::string Schema(const std::string& name) {
    return "echo '{\"name\": \"" + name +
           "\", \"description\": \"d\", \"parameters\": {\"type\": \"object\", \"properties\": "
           "{}, \"required\": []}}'\n";
  }

  TempDir dir_;
  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
};

// Whether `text` holds an SGR (colour) sequence: ESC [ digits and ; m.
bool HasColour(const std::string& text) {
  for (auto at = text.find("\033["); at != std::string::npos; at = text.find("\033[", at + 1)) {
    std::size_t end = at + 2;
    while (end < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == ';')) {
      ++end;
    }
    if (end < text.size() && text[end] == 'm') return true;
  }
  return false;
}

bool ProcessGone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  // A zombie waiting for its new parent counts as gone.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), {});
  const auto paren = all.rfind(')');
  return paren != std::string::npos && paren + 2 < all.size() && all[paren + 2] == 'Z';
}

// Gone within `timeout` (a process killed a moment ago takes a while to end).
bool EndsSoon(pid_t pid, std::chrono::seconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!ProcessGone(pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ProcessGone(pid);
}

pid_t ReadPid(const std::string& path, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(path);
    long pid = 0;
    if (in >> pid && pid > 0) return static_cast<pid_t>(pid);
    std::this_thread::sleep_for(20ms);
  }
  return -1;
}

TEST_F(ReplTest, PromptComesBeforeASlowToolFinishesDiscovery) {
  const std::string marker = dir_ / "schema-answered";
  WriteProjectTool("slow", "if [ \"$1\" = --schema ]; then sleep 2; touch " + marker + "; " +
                               Schema("slow") + "fi\n");
  WriteFile(project() + "/.ikigai/config.json", R"({"schema_timeout_ms": 10000})");
  auto repl = Start(BaseEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the prompt waited for discovery";
  // A command that needs the tools waits for the scan to end.
  repl->Send("/tool\r");
  ASSERT_TRUE(repl->Expect("Available tools:")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("  slow (.ikigai/tools/slow-tool)")) << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(marker));
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, WithoutAKeyTheCommandsWorkAndAMessageSaysHowToConfigure) {
  auto repl = Start(BaseEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("no API key for the anthropic provider. Set ANTHROPIC_API_KEY"))
      << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/tool\r");
  ASSERT_TRUE(repl->Expect("Available tools:\n  ask_user (")) << repl->Plain();
  for (const char* name : {"file_edit", "file_read", "file_write", "glob", "grep"}) {
    EXPECT_TRUE(repl->Expect(std::string("  ") + name + " (")) << name << repl->Plain();
  }
  repl->Send("hello\r");
  EXPECT_TRUE(repl->Expect("Cannot send: no API key for the anthropic provider")) << repl->Plain();
  EXPECT_TRUE(repl->Expect("~/.ikigai/config.json"));
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, ToolNameShowsPathAndSchemaAndUnknownCommandsGetAHint) {
  auto repl = Start(BaseEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/tool bash\r");
  ASSERT_TRUE(repl->Expect("Tool: bash\nPath: ")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("bash-tool\nSchema:\n{\n  \"name\": \"bash\"")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("\"command\""));
  repl->Send("/tool café_ü\r");  // UTF-8 typed in
  EXPECT_TRUE(repl->Expect("Unknown tool: 'café_ü'\nUse /tool to see available tools."))
      << repl->Plain();
  repl->Send("/frobnicate now\r");
  EXPECT_TRUE(repl->Expect("Unknown command: /frobnicate. Type /help to see the commands."))
      << repl->Plain();
  repl->Send("/help\r");
  for (const char* line :
       {"/tool [NAME]", "/refresh", "/model [NAME]", "/clear", "/help", "/quit", "Alt+Enter"}) {
    EXPECT_TRUE(repl->Expect(line)) << line << repl->Plain();
  }
  repl->Send("/clear now\r");
  EXPECT_TRUE(repl->Expect("Usage: /clear (no arguments)")) << repl->Plain();
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, McpShowsEachServersStateAndTools) {
  const std::string fake = std::string(IKIGAI_MCP_TESTDATA) + "/fake_server.js";
  ::mkdir((home() + "/.ikigai").c_str(), 0755);
  WriteFile(home() + "/.ikigai/config.json",
            nlohmann::json{
                {"mcp_servers",
                 {{"fake", {{"command", "node"}, {"args", {fake, "ok"}}}},
                  {"hang",
                   {{"command", "node"}, {"args", {fake, "hang"}}, {"startup_timeout_ms", 500}}}}}}
                .dump());
  auto repl = Start(BaseEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/mcp\r");
  ASSERT_TRUE(repl->Expect("fake  ready  node " + fake + " ok\n  mcp__fake__crash\n"))
      << repl->Plain();
  ASSERT_TRUE(repl->Expect("hang  failed  node " + fake +
                           " hang\n  why: no answer to initialize within 500 ms"))
      << repl->Plain();
  EXPECT_NE(repl->Plain().find("MCP server 'hang' is not available"), std::string::npos)
      << repl->Plain();
  repl->Send("/tool mcp__fake__env\r");
  EXPECT_TRUE(repl->Expect("Tool: mcp__fake__env\nPath: mcp:fake")) << repl->Plain();
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, RefreshFindsAToolAddedToTheProject) {
  auto repl = Start(BaseEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/tool weather\r");
  ASSERT_TRUE(repl->Expect("Unknown tool: 'weather'")) << repl->Plain();
  WriteProjectTool("weather", "if [ \"$1\" = --schema ]; then " + Schema("weather") + "fi\n");
  repl->Send("/refresh\r");
  ASSERT_TRUE(repl->Expect("Tool registry refreshed: 14 tools loaded")) << repl->Plain();
  repl->Send("/tool weather\r");
  EXPECT_TRUE(repl->Expect("Tool: weather\nPath: .ikigai/tools/weather-tool")) << repl->Plain();
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, DiscoveryProblemsAppearOnceAsDebugLinesEvenWhileIdle) {
  // Fails its --schema after the 1 s timeout and a 3 s second try: the line
  // comes while the user sits at the prompt.
  WriteProjectTool("foo", "sleep 5\n");
  WriteProjectTool("broken", "exit 3\n");
  auto repl = Start(BaseEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  ASSERT_TRUE(repl->Expect("Debug: tool 'broken' schema failed (exit code 3)")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("Debug: tool 'foo' schema failed (timeout)")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> ")) << "the prompt is drawn again below";
  repl->Send("/model\r");
  ASSERT_TRUE(repl->Expect("Model: claude-sonnet-4-5 (anthropic)")) << repl->Plain();
  repl->Send("/help\r");
  ASSERT_TRUE(repl->Expect("/quit"));
  ASSERT_TRUE(repl->Expect("> "));
  const std::string all = repl->Plain();
  std::size_t count = 0;
  for (auto at = all.find("Debug: tool 'foo'"); at != std::string::npos;
       at = all.find("Debug: tool 'foo'", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 1u) << all;
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

// Outside text drives nothing on the user's terminal: the answer's clipboard
// write, window title and clear screen, and a tool line disguised with
// cursor moves, arrive as visible escapes; no raw ESC or C1 CSI reaches
// the terminal but ikigai's own colours.
TEST_F(ReplTest, OutsideTextCannotDriveTheTerminal) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-hostile-answer\r");
  ASSERT_TRUE(
      repl->Expect("clip\\x1b]52;c;ZXZpbA==\\x07 title\\x1b]0;pwned\\x07 clear\\x1b[2J "
                   "csi\\u009b2J end"))
      << repl->Raw();
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-hostile-call\r");
  ASSERT_TRUE(repl->Expect("Hostile done.")) << repl->Raw();
  ASSERT_TRUE(repl->Expect("> "));
  const std::string raw = repl->Raw();
  EXPECT_EQ(raw.find("\x1b]"), std::string::npos) << "an OSC sequence reached the terminal";
  EXPECT_EQ(raw.find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(raw.find("\x1b[2K"), std::string::npos);
  EXPECT_EQ(raw.find("\xc2\x9b"), std::string::npos);
  EXPECT_NE(repl->Plain().find("echo hi #\\x1b[2K\\x1b[1G[tool] bash: ls"), std::string::npos)
      << repl->Plain();
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, TheAnswerStreamsAsItArrives) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("gpt-4.1 (openai)")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-stream\r");
  // Eight chunks 700 ms apart: the first is on screen seconds before the last.
  ASSERT_TRUE(repl->Expect("alpha")) << repl->Plain();
  EXPECT_FALSE(repl->Seen("theta")) << "the answer came all at once";
  ASSERT_TRUE(repl->Expect("eta theta")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/quit\r");
  ASSERT_TRUE(repl->Expect("Session saved: ikigai --resume ")) << repl->Plain();
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, AToolCallShowsOneLineAndItsOutcomeInColour) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-tool\r");
  ASSERT_TRUE(repl->Expect("[tool] bash: echo hi-from-tool\n")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("[tool] bash -> ok (")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("Listed them.")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  const std::string raw = repl->Raw();
  EXPECT_TRUE(HasColour(raw));
  EXPECT_NE(raw.find("\033[32mok\033[0m"), std::string::npos) << "ok in green";
  EXPECT_NE(raw.find("\033[1mbash\033[0m"), std::string::npos) << "the name in bold";
  // The tool's result went back to the model under its call id.
  const auto request = LastRequest();
  ASSERT_TRUE(request.contains("messages")) << request.dump();
  const auto& last = request["messages"].back();
  EXPECT_EQ(last["role"], "tool");
  EXPECT_EQ(last["tool_call_id"], "call_list");
  EXPECT_NE(last["content"].get<std::string>().find("hi-from-tool"), std::string::npos);
  repl->Send("\x04");  // Ctrl+D
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, TasksListsBackgroundWorkWhichEndsWithTheSession) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/tasks\r");
  ASSERT_TRUE(repl->Expect("No background tasks in this session")) << repl->Plain();
  repl->Send("repl-background\r");
  ASSERT_TRUE(repl->Expect("It runs.")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/tasks\r");
  ASSERT_TRUE(repl->Expect("bg_")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("  bash  running  ")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("echo $$ > bg.pid; exec sleep 31.5")) << repl->Plain();
  const std::string pid_file = project() + "/bg.pid";
  // The shell creates the file before it writes the number: wait for the line.
  const auto pid_line = [&pid_file] {
    return std::filesystem::exists(pid_file) ? ikigai::testing::ReadFile(pid_file) : std::string();
  };
  for (int i = 0; i < 1000 && !pid_line().ends_with('\n'); ++i) ::usleep(20000);
  const std::string pid_text = pid_line();
  ASSERT_TRUE(pid_text.ends_with('\n')) << "the background command never wrote its pid";
  const pid_t sleeper = std::stoi(pid_text);
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
  // The session ended: so did its background command.
  bool gone = false;
  for (int i = 0; i < 1000 && !gone; ++i) {
    gone = ::kill(sleeper, 0) != 0 ||
           ikigai::testing::ReadFile("/proc/" + std::to_string(sleeper) + "/stat").find(") Z") !=
               std::string::npos;
    if (!gone) ::usleep(20000);
  }
  EXPECT_TRUE(gone) << "the background command outlived the REPL";
}

TEST_F(ReplTest, NoColorGivesPlainOutput) {
  Env env = ProviderEnv();
  env.emplace_back("NO_COLOR", "1");
  auto repl = Start(env);
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/frobnicate\r");
  ASSERT_TRUE(repl->Expect("Unknown command"));
  repl->Send("repl-tool\r");
  ASSERT_TRUE(repl->Expect("[tool] bash -> ok (")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("Listed them."));
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
  const std::string raw = repl->Raw();
  EXPECT_FALSE(HasColour(raw)) << raw;
  EXPECT_NE(raw.find("[tool] bash -> ok ("), std::string::npos) << raw;
}

TEST_F(ReplTest, CtrlCStopsALongToolAndThePromptComesBack) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-long\r");
  ASSERT_TRUE(repl->Expect("[tool] bash: echo $$ > shell.pid")) << repl->Plain();
  const pid_t shell = ReadPid(project() + "/shell.pid", 30s);
  const pid_t sleeper = ReadPid(project() + "/sleep.pid", 30s);
  ASSERT_GT(shell, 0);
  ASSERT_GT(sleeper, 0);
  repl->Send("\x03");  // Ctrl+C
  ASSERT_TRUE(repl->Expect("[tool] bash -> CANCELLED")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("Interrupted.")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  // Every process of the tool's group is gone.
  EXPECT_TRUE(EndsSoon(shell));
  EXPECT_TRUE(EndsSoon(sleeper));
  // The REPL goes on, with the conversation intact.
  repl->Send("repl-after\r");
  ASSERT_TRUE(repl->Expect("Still here.")) << repl->Plain();
  EXPECT_EQ(repl->Wait(0ms), -1) << "still running";
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, SigtermDuringAToolEndsIkigaiWithoutLeavingTheTool) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-long\r");
  const pid_t shell = ReadPid(project() + "/shell.pid", 30s);
  const pid_t sleeper = ReadPid(project() + "/sleep.pid", 30s);
  ASSERT_GT(shell, 0);
  ASSERT_GT(sleeper, 0);
  ::kill(repl->pid(), SIGTERM);
  EXPECT_EQ(repl->Wait(), 128 + SIGTERM) << repl->Plain();
  EXPECT_TRUE(EndsSoon(shell));
  EXPECT_TRUE(EndsSoon(sleeper));

  auto idle = Start(BaseEnv());  // at the prompt
  ASSERT_TRUE(idle);
  ASSERT_TRUE(idle->Expect("> "));
  ::kill(idle->pid(), SIGHUP);
  EXPECT_EQ(idle->Wait(), 128 + SIGHUP) << idle->Plain();
}

TEST_F(ReplTest, CtrlCTwiceAtAnEmptyPromptQuitsAndCtrlDToo) {
  auto repl = Start(BaseEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("some text");
  ASSERT_TRUE(repl->Expect("some text"));  // read by the editor (Ctrl+C flushes unread input)
  repl->Send("\x03");                      // drops the line, no hint
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  EXPECT_FALSE(repl->Seen("Press Ctrl+C again"));
  repl->Send("\x03");
  ASSERT_TRUE(repl->Expect("(Press Ctrl+C again to quit, or type /quit.)")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("\x03");
  EXPECT_EQ(repl->Wait(), 0) << repl->Plain();

  auto again = Start(BaseEnv());
  ASSERT_TRUE(again);
  ASSERT_TRUE(again->Expect("> "));
  again->Send("abc\x04");   // Ctrl+D on a non-empty line only deletes
  again->Send("\x01\x0b");  // Ctrl+A, Ctrl+K: the line is empty again
  ASSERT_TRUE(again->Expect("abc"));
  EXPECT_EQ(again->Wait(200ms), -1) << "still running";
  again->Send("\x04");
  EXPECT_EQ(again->Wait(), 0) << again->Plain();
}

TEST_F(ReplTest, HistoryPersistsAcrossSessions) {
  auto first = Start(BaseEnv());
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->Expect("> "));
  first->Send("/model history-check-model\r");
  ASSERT_TRUE(first->Expect("Model set to history-check-model")) << first->Plain();
  first->Send("/quit\r");
  ASSERT_EQ(first->Wait(), 0);
  const std::string history = home() + "/.ikigai/history";
  EXPECT_EQ(ReadFile(history), "/model history-check-model\n/quit\n");
  struct stat st {};
  ASSERT_EQ(::stat(history.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  auto second = Start(BaseEnv());
  ASSERT_TRUE(second);
  ASSERT_TRUE(second->Expect("> "));
  second->Send("\033[A\033[A\r");  // Up twice (past /quit), Enter
  ASSERT_TRUE(second->Expect("Model set to history-check-model")) << second->Plain();
  second->Send("/quit\r");
  EXPECT_EQ(second->Wait(), 0);
}

TEST_F(ReplTest, PastedNewlinesAndBackslashContinuationsStayInTheMessage) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("\033[200~pasted line one\npasted line two\033[201~");
  repl->Send("\r");
  ASSERT_TRUE(repl->Expect("Got the paste.")) << repl->Plain();
  EXPECT_EQ(LastRequest()["messages"].back()["content"], "pasted line one\npasted line two");
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("first part\\\r");
  repl->Send("second part\r");
  ASSERT_TRUE(repl->Expect("Got the continuation.")) << repl->Plain();
  EXPECT_EQ(LastRequest()["messages"].back()["content"], "first part\nsecond part");
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("first part\033\rsecond part\r");  // Alt+Enter
  ASSERT_TRUE(repl->Expect("Got the continuation.")) << repl->Plain();
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, ModelAndClearChangeWhatIsSent) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/model\r");
  ASSERT_TRUE(repl->Expect("Model: gpt-4.1 (openai)")) << repl->Plain();
  repl->Send("repl-hello one\r");
  ASSERT_TRUE(repl->Expect("Hello from the mock.")) << repl->Plain();
  repl->Send("/model other-model\r");
  ASSERT_TRUE(repl->Expect("Model set to other-model")) << repl->Plain();
  repl->Send("repl-hello two\r");
  ASSERT_TRUE(repl->Expect("Hello from the mock.")) << repl->Plain();
  auto request = LastRequest();
  EXPECT_EQ(request["model"], "other-model");
  EXPECT_EQ(request["messages"].size(), 4u) << "system, user, assistant, user: " << request.dump();

  repl->Send("/clear\r");
  ASSERT_TRUE(repl->Expect("New conversation")) << repl->Plain();
  repl->Send("repl-hello three\r");
  ASSERT_TRUE(repl->Expect("Hello from the mock.")) << repl->Plain();
  request = LastRequest();
  ASSERT_EQ(request["messages"].size(), 2u) << request.dump();
  EXPECT_EQ(request["messages"][1]["content"], "repl-hello three");
  EXPECT_EQ(request["model"], "other-model") << "the model outlives /clear";
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
  // /clear started a new session log.
  EXPECT_EQ(ikigai::testing::ListDir(home() + "/.ikigai/sessions").size(), 2u);
}

// The third provider, chosen by flag: the answer comes from aimock's Gemini
// endpoint, with the key in its own header.
TEST_F(ReplTest, TheGeminiProviderAnswers) {
  Env env = BaseEnv();
  env.emplace_back("GEMINI_API_KEY", AimockServer::kApiKey);
  env.emplace_back("GOOGLE_GEMINI_BASE_URL", aimock_->url());
  auto repl = Start(env, {"--provider", "gemini"});
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("gemini-2.5-flash (gemini)")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-hello gemini\r");
  ASSERT_TRUE(repl->Expect("Hello from the mock.")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> "));
  auto journal = aimock_->Journal();
  ASSERT_TRUE(journal) << journal.error();
  ASSERT_EQ(journal->size(), 1u);
  const nlohmann::json& entry = journal->back();
  EXPECT_EQ(entry["path"], "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  EXPECT_TRUE(entry["headers"].contains("x-goog-api-key")) << entry["headers"];
  EXPECT_EQ(entry["body"]["messages"][1]["content"], "repl-hello gemini");
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, ResumeContinuesALoggedSession) {
  auto first = Start(ProviderEnv());
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->Expect("> "));
  first->Send("repl-hello remember kiwi\r");
  ASSERT_TRUE(first->Expect("Hello from the mock.")) << first->Plain();
  first->Send("/quit\r");
  ASSERT_TRUE(first->Expect("Session saved: ikigai --resume ")) << first->Plain();
  ASSERT_EQ(first->Wait(), 0);
  std::string id = first->Rest();
  id = id.substr(0, id.find('\n'));
  ASSERT_FALSE(id.empty());

  // By id, then the most recent; each run adds a question and its answer.
  std::size_t messages_before = 2;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--resume", id}, std::vector<std::string>{"--resume"}}) {
    auto second = Start(ProviderEnv(), args);
    ASSERT_TRUE(second);
    ASSERT_TRUE(second->Expect("Resumed session " + id + " (" + std::to_string(messages_before) +
                               " messages)."))
        << second->Plain();
    messages_before += 2;
    ASSERT_TRUE(second->Expect("> "));
    second->Send("repl-hello again\r");
    ASSERT_TRUE(second->Expect("Hello from the mock.")) << second->Plain();
    const auto messages = LastRequest()["messages"];
    ASSERT_GE(messages.size(), 4u) << messages.dump();
    EXPECT_EQ(messages[1]["content"], "repl-hello remember kiwi");
    EXPECT_EQ(messages.back()["content"], "repl-hello again");
    second->Send("/quit\r");
    EXPECT_EQ(second->Wait(), 0);
  }
  EXPECT_EQ(ikigai::testing::ListDir(home() + "/.ikigai/sessions").size(), 1u)
      << "a resumed session is appended to, not copied";
}

TEST_F(ReplTest, AProviderErrorIsShownAndThePromptComesBack) {
  Env env = BaseEnv();
  env.emplace_back("OPENAI_API_KEY", "a-wrong-key");
  env.emplace_back("OPENAI_BASE_URL", aimock_->openai_base_url());
  auto repl = Start(env);
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("repl-hello\r");
  ASSERT_TRUE(repl->Expect("ikigai: the server refused the API key")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("set OPENAI_API_KEY to a valid key"));
  ASSERT_TRUE(repl->Expect("> "));
  repl->Send("/model\r");
  EXPECT_TRUE(repl->Expect("Model: gpt-4.1 (openai)")) << repl->Plain();
  repl->Send("/quit\r");
  EXPECT_EQ(repl->Wait(), 0);
}

TEST_F(ReplTest, ResumingAnUnknownSessionFails) {
  auto repl = Start(ProviderEnv(), {"--resume", "no-such-session"});
  ASSERT_TRUE(repl);
  EXPECT_TRUE(repl->Expect("ikigai: cannot resume:")) << repl->Plain();
  EXPECT_EQ(repl->Wait(), 2);
}

TEST_F(ReplTest, PipedInputRunsCommandsWithoutAPrompt) {
  // Not a terminal: plain lines, no prompt, no colour.
  auto run = ikigai::testing::RunExecutable(kIkigai, "/tool bash\n/frobnicate\n",
                                            {.env = {{"HOME", home()},
                                                     {"ANTHROPIC_API_KEY", ""},
                                                     {"OPENAI_API_KEY", ""},
                                                     {"OPENAI_BASE_URL", ""},
                                                     {"NO_COLOR", ""}},
                                             .cwd = project()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Tool: bash\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Unknown command: /frobnicate."), std::string::npos) << run.out;
  EXPECT_TRUE(run.out.starts_with("ikigai ")) << "the banner, no prompt before it: " << run.out;
  EXPECT_EQ(run.out.find("\n> "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find('\033'), std::string::npos) << run.out;
}

// /permissions shows and switches the mode.
TEST_F(ReplTest, PermissionsCommandShowsAndSwitchesTheMode) {
  auto repl = Start(AskModeEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("/permissions\r");
  EXPECT_TRUE(repl->Expect("Permission mode: ask")) << repl->Plain();
  repl->Send("/permissions auto\r");
  EXPECT_TRUE(repl->Expect("Permission mode set to auto")) << repl->Plain();
  repl->Send("/status\r");
  EXPECT_TRUE(repl->Expect("Model: gpt-4.1 (openai)\nPermission mode: auto")) << repl->Plain();
  EXPECT_TRUE(repl->Expect("Sandbox: ")) << repl->Plain();
  repl->Send("/quit\r");
}

// The system prompt tells the model the mode: a switch mid-conversation
// reaches the next request.
TEST_F(ReplTest, TheModelIsToldTheModeAfterASwitch) {
  auto repl = Start(AskModeEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("repl-hello one\r");
  ASSERT_TRUE(repl->Expect("Hello from the mock.")) << repl->Plain();
  EXPECT_NE(LastRequest()["messages"][0]["content"].dump().find("Permission mode: ask"),
            std::string::npos);
  repl->Send("/permissions read-only\r");
  ASSERT_TRUE(repl->Expect("Permission mode set to read-only")) << repl->Plain();
  repl->Send("repl-hello two\r");
  ASSERT_TRUE(repl->Expect("Hello from the mock.")) << repl->Plain();
  const std::string system = LastRequest()["messages"][0]["content"].dump();
  EXPECT_NE(system.find("Permission mode: read-only"), std::string::npos) << system;
  EXPECT_EQ(system.find("Permission mode: ask"), std::string::npos) << system;
  repl->Send("/quit\r");
}

// Without Landlock (simulated) the REPL warns once, and refuses to switch to
// auto, which would run everything unconfined without asking.
TEST_F(ReplTest, WithoutLandlockAutoIsRefusedAndTheWarningComesOnce) {
  Env env = AskModeEnv();
  env.emplace_back("IKIGAI_TEST_LANDLOCK_ABI", "0");
  auto repl = Start(env);
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("no Landlock, so tool calls run unconfined")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("/permissions auto\r");
  EXPECT_TRUE(repl->Expect("--permissions auto runs every call without asking")) << repl->Plain();
  repl->Send("/permissions\r");
  EXPECT_TRUE(repl->Expect("Permission mode: ask")) << repl->Plain();
  repl->Send("/status\r");
  EXPECT_TRUE(repl->Expect("Sandbox: none: Landlock is not available")) << repl->Plain();
  repl->Send("/quit\r");
}

// The question in ask mode: `n` with a reason refuses and tells the model
// why; `y` runs the call once; `a` runs it and keeps a rule, so the same
// command runs next time without a question; Ctrl+C refuses and stops the
// turn.
TEST_F(ReplTest, AskModeAsksAndTheAnswersDecide) {
  auto repl = Start(AskModeEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();

  repl->Send("repl-ask\r");
  ASSERT_TRUE(repl->Expect("Allow bash?")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("  | touch approved.txt")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  repl->Send("n not in this folder\r");
  ASSERT_TRUE(repl->Expect("Asked and answered.")) << repl->Plain();
  EXPECT_FALSE(std::filesystem::exists(project() + "/approved.txt"));
  const std::string refused = LastRequest()["messages"].back().dump();
  EXPECT_NE(refused.find("PERMISSION_DENIED"), std::string::npos) << refused;
  EXPECT_NE(refused.find("not in this folder"), std::string::npos) << refused;

  repl->Send("repl-ask\r");
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  repl->Send("y\r");
  ASSERT_TRUE(repl->Expect("Asked and answered.")) << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(project() + "/approved.txt"));
  std::filesystem::remove(project() + "/approved.txt");

  repl->Send("repl-ask\r");
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  repl->Send("a\r");
  ASSERT_TRUE(repl->Expect("Asked and answered.")) << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(project() + "/approved.txt"));
  std::filesystem::remove(project() + "/approved.txt");
  std::ifstream store(home() + "/.ikigai/projects.json");
  const std::string kept((std::istreambuf_iterator<char>(store)), {});
  EXPECT_NE(kept.find("bash(touch"), std::string::npos) << kept;
  repl->Send("repl-ask\r");
  ASSERT_TRUE(repl->Expect("Asked and answered.")) << "asked again:\n" << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(project() + "/approved.txt"));

  repl->Send("repl-stop\r");
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  repl->Send("\x03");
  ASSERT_TRUE(repl->Expect("Interrupted.")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  EXPECT_FALSE(std::filesystem::exists(project() + "/stopped.d"));
  repl->Send("/quit\r");
}

// ask_user's question takes the prompt: a number picks an option and goes
// back to the model; Ctrl+C declines without stopping the turn. Neither it
// nor todo_write needs an approval, even in ask mode.
TEST_F(ReplTest, AskUserAsksOnTheTerminalAndTheAnswerGoesBack) {
  auto repl = Start(AskModeEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();

  repl->Send("repl-question\r");
  ASSERT_TRUE(repl->Expect("ask_user asks:")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("Which database?")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("  2. SQLite")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("answer> ")) << repl->Plain();
  repl->Send("2\r");
  ASSERT_TRUE(repl->Expect("Thanks for answering.")) << repl->Plain();
  std::string result = LastRequest()["messages"].back().dump();
  EXPECT_NE(result.find(R"(\"answer\":\"SQLite\")"), std::string::npos) << result;
  EXPECT_NE(result.find(R"(\"option\":2)"), std::string::npos) << result;

  repl->Send("repl-question\r");
  ASSERT_TRUE(repl->Expect("answer> ")) << repl->Plain();
  repl->Send("\x03");
  ASSERT_TRUE(repl->Expect("Thanks for answering.")) << repl->Plain();
  result = LastRequest()["messages"].back().dump();
  EXPECT_NE(result.find(R"(\"declined\":true)"), std::string::npos) << result;

  repl->Send("repl-plan\r");
  ASSERT_TRUE(repl->Expect("Plan made.")) << repl->Plain();
  const std::string shown = repl->Plain();
  EXPECT_NE(shown.find("Plan:"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\u2714 Read the code"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\u25b8 Fix the bug"), std::string::npos) << shown;
  EXPECT_NE(shown.find("\u2610 Run the tests"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("allow?"), std::string::npos) << shown;
  repl->Send("/quit\r");
}

// Hooks in the REPL: SessionStart with the first message, a PreToolUse
// hook's "ask" asks even in auto mode (its reason shown), and a
// UserPromptSubmit refusal is shown and nothing is sent.
TEST_F(ReplTest, HooksAskRefuseAndStartTheSession) {
  ::mkdir((home() + "/.ikigai").c_str(), 0755);
  WriteFile(home() + "/.ikigai/config.json", R"({"hooks": {
    "SessionStart": [{"command": "cat > session-start.json"}],
    "PreToolUse": [{"matcher": "bash", "command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"hook-reason-51\"}}'"}],
    "UserPromptSubmit": [{"command": "if grep -q repl-hello; then echo refused-by-hook-4 >&2; exit 2; fi"}]}})");
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("repl-ask\r");
  ASSERT_TRUE(repl->Expect("A PreToolUse hook asks: hook-reason-51")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  repl->Send("y\r");
  ASSERT_TRUE(repl->Expect("Asked and answered.")) << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(project() + "/approved.txt"));
  std::ifstream start_file(project() + "/session-start.json");
  const auto start = nlohmann::json::parse(start_file, nullptr, false);
  EXPECT_EQ(start.value("source", ""), "startup") << start;

  const std::size_t sent = aimock_->Journal()->size();
  repl->Send("repl-hello\r");
  ASSERT_TRUE(repl->Expect("refused-by-hook-4")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  EXPECT_EQ(aimock_->Journal()->size(), sent) << "the refused prompt was sent";
  repl->Send("/quit\r");
}

// Two calls of one turn are asked one after another, and only then run: the
// first answer does not run its call before the second question.
TEST_F(ReplTest, ParallelCallsAreAskedInTurnThenRun) {
  auto repl = Start(AskModeEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("repl-two-asks\r");
  ASSERT_TRUE(repl->Expect("  | touch first.txt")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  repl->Send("y\r");
  ASSERT_TRUE(repl->Expect("  | touch second.txt")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  EXPECT_FALSE(std::filesystem::exists(project() + "/first.txt")) << "ran before all were asked";
  repl->Send("n\r");
  ASSERT_TRUE(repl->Expect("Both answered.")) << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(project() + "/first.txt"));
  EXPECT_FALSE(std::filesystem::exists(project() + "/second.txt"));
  repl->Send("/quit\r");
}

// A folder with a .ikigai/ is asked about once, before anything of it runs:
// "n" skips it (its tool's --schema never runs) and is kept, so the next
// start asks nothing; "y" loads it.
TEST_F(ReplTest, TheTrustQuestionDecidesOnceForTheFolder) {
  const std::string mark = dir_ / "schema-ran";
  ::mkdir((project() + "/.ikigai").c_str(), 0755);
  ::mkdir((project() + "/.ikigai/tools").c_str(), 0755);
  WriteFile(project() + "/.ikigai/tools/planted-tool",
            "#!/bin/sh\ntouch " + mark + "\n" + Schema("planted"), 0755);

  auto refused = Start(BaseEnv());
  ASSERT_TRUE(refused);
  ASSERT_TRUE(refused->Expect("It contains: 1 tool")) << refused->Plain();
  ASSERT_TRUE(refused->Expect("Trust this folder? [y/N] ")) << refused->Plain();
  EXPECT_FALSE(std::filesystem::exists(mark)) << "ran before the answer";
  refused->Send("n\r");
  ASSERT_TRUE(refused->Expect("Not trusted")) << refused->Plain();
  ASSERT_TRUE(refused->Expect("> ")) << refused->Plain();
  refused->Send("/tool\r");
  ASSERT_TRUE(refused->Expect("Available tools:")) << refused->Plain();
  refused->Send("/quit\r");
  EXPECT_EQ(refused->Wait(), 0);
  EXPECT_EQ(refused->Plain().find("planted"), std::string::npos) << refused->Plain();
  EXPECT_FALSE(std::filesystem::exists(mark));

  auto again = Start(BaseEnv());
  ASSERT_TRUE(again);
  ASSERT_TRUE(again->Expect("> ")) << again->Plain();
  again->Send("/quit\r");
  EXPECT_EQ(again->Wait(), 0);
  EXPECT_EQ(again->Plain().find("Trust this folder?"), std::string::npos) << again->Plain();

  ASSERT_TRUE(std::filesystem::remove(home() + "/.ikigai/projects.json"));  // never decided
  auto trusted = Start(BaseEnv());
  ASSERT_TRUE(trusted);
  ASSERT_TRUE(trusted->Expect("Trust this folder? [y/N] ")) << trusted->Plain();
  trusted->Send("y\r");
  ASSERT_TRUE(trusted->Expect("Trusted.")) << trusted->Plain();
  ASSERT_TRUE(trusted->Expect("> ")) << trusted->Plain();
  trusted->Send("/tool\r");
  ASSERT_TRUE(trusted->Expect("  planted (")) << trusted->Plain();
  trusted->Send("/quit\r");
  EXPECT_EQ(trusted->Wait(), 0);
  EXPECT_TRUE(std::filesystem::exists(mark));
}

// Where no rule could allow the call again without allowing more (here a
// command substitution, which allow rules never cover), the question offers
// no "always"; y and n still work.
TEST_F(ReplTest, NoAlwaysAnswerWhereNoRuleFits) {
  auto repl = Start(AskModeEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("repl-no-always\r");
  ASSERT_TRUE(repl->Expect("allow? [y/n] ")) << repl->Plain();
  EXPECT_EQ(repl->Plain().find("a: always"), std::string::npos) << repl->Plain();
  repl->Send("a\r");
  ASSERT_TRUE(repl->Expect("Answer y or n")) << repl->Plain();
  repl->Send("y\r");
  ASSERT_TRUE(repl->Expect("Asked once.")) << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(project() + "/once.txt"));
  EXPECT_FALSE(std::filesystem::exists(home() + "/.ikigai/projects.json"));
  repl->Send("/quit\r");
}

// A long edit is shown in part; what is approved can still be seen whole:
// v shows the rest, then the question again.
TEST_F(ReplTest, ALongEditsWholeDiffIsOneKeyAway) {
  auto repl = Start(AskModeEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("repl-long-write\r");
  ASSERT_TRUE(repl->Expect("more lines)")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("v: view the whole diff")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  EXPECT_EQ(repl->Plain().find("+l69"), std::string::npos) << "shown in part first";
  repl->Send("v\r");
  ASSERT_TRUE(repl->Expect("+l69")) << repl->Plain();
  ASSERT_TRUE(repl->Expect("allow? [y/a/n] ")) << repl->Plain();
  repl->Send("y\r");
  ASSERT_TRUE(repl->Expect("Written after a look.")) << repl->Plain();
  EXPECT_TRUE(std::filesystem::exists(project() + "/long.txt"));
  repl->Send("/quit\r");
}

// /compact FOCUS: the summary asked with the focus, the line saying what it
// did, and the next message carrying the summary; /status shows how full
// the context is and the tokens used, the summary's included.
TEST_F(ReplTest, CompactAndStatus) {
  auto repl = Start(ProviderEnv());
  ASSERT_TRUE(repl);
  ASSERT_TRUE(repl->Expect("> ")) << repl->Plain();
  repl->Send("/compact\r");
  ASSERT_TRUE(repl->Expect("Nothing to compact yet.")) << repl->Plain();
  repl->Send("repl-counted\r");
  ASSERT_TRUE(repl->Expect("Counted.")) << repl->Plain();
  repl->Send("/compact the counting\r");
  ASSERT_TRUE(repl->Expect("Compacted: ")) << repl->Plain();
  EXPECT_NE(LastRequest()["messages"].dump().find("keep this above all: the counting"),
            std::string::npos);
  repl->Send("/status\r");
  ASSERT_TRUE(repl->Expect("Tokens used: 1,274 in, 65 out")) << repl->Plain();
  EXPECT_NE(repl->Plain().find("Context: "), std::string::npos) << repl->Plain();
  EXPECT_NE(repl->Plain().find("of 1,047,576 tokens"), std::string::npos) << repl->Plain();
  EXPECT_NE(repl->Plain().find("Session: "), std::string::npos) << repl->Plain();
  repl->Send("repl-after-compact\r");
  ASSERT_TRUE(repl->Expect("Carried on.")) << repl->Plain();
  const std::string sent = LastRequest()["messages"].dump();
  EXPECT_NE(sent.find("repl-summary-abc"), std::string::npos) << sent;
  EXPECT_EQ(sent.find("Counted."), std::string::npos) << "the old turns are gone: " << sent;
  repl->Send("/quit\r");
}

}  // namespace
}  // namespace ikigai::repl
