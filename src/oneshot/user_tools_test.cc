// The tools that talk to the user, in -p (DECISIONS §9): ask_user has
// nobody to ask (NO_USER, never an empty answer), todo_write's plan goes
// to stderr, a tool's progress lines too. The real `ikigai` binary and the
// real tools; the model played by aimock.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "providers/testing/aimock_server.h"
#include "testing/tool_runner.h"

namespace ikigai::oneshot {
namespace {

using nlohmann::json;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::TempDir;
using testing::ToolRun;
using testing::WriteFile;
using Env = std::vector<std::pair<std::string, std::string>>;

const std::string kIkigai = IKIGAI_BIN;

constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"toolCallId": "call_question"}, "response": {"content": "Decided alone."}},
  {"match": {"toolCallId": "call_plan"}, "response": {"content": "Planned."}},
  {"match": {"toolCallId": "call_clear"}, "response": {"content": "Cleared."}},
  {"match": {"toolCallId": "call_badplan"}, "response": {"content": "Fixed it."}},
  {"match": {"toolCallId": "call_progress"}, "response": {"content": "Hashed."}},
  {"match": {"toolCallId": "call_choose"}, "response": {"content": "Chose alone."}},
  {"match": {"userMessage": "question-please"},
   "response": {"toolCalls": [{"id": "call_question", "name": "ask_user",
     "arguments": {"question": "Which database?", "options": ["Postgres", "SQLite"]}}]}},
  {"match": {"userMessage": "plan-please"},
   "response": {"toolCalls": [{"id": "call_plan", "name": "todo_write", "arguments": {"todos": [
     {"content": "Read the code", "status": "completed"},
     {"content": "Fix the bug", "status": "in_progress"},
     {"content": "Run the tests", "status": "pending"}]}}]}},
  {"match": {"userMessage": "clear-please"},
   "response": {"toolCalls": [{"id": "call_clear", "name": "todo_write", "arguments": {"todos": []}}]}},
  {"match": {"userMessage": "invalid-todo-please"},
   "response": {"toolCalls": [{"id": "call_badplan", "name": "todo_write", "arguments": {"todos": [
     {"content": "Read the code", "status": "done"}]}}]}},
  {"match": {"userMessage": "progress-please"},
   "response": {"toolCalls": [{"id": "call_progress", "name": "checksum",
     "arguments": {"paths": ["a.txt", "b.txt"]}}]}},
  {"match": {"userMessage": "choose-please"},
   "response": {"toolCalls": [{"id": "call_choose", "name": "choose",
     "arguments": {"question": "Which?", "choices": ["a", "b"]}}]}}
]})";

// The host channel's examples of docs/tool-protocol.md, as user tools.
const std::string kExamples = IKIGAI_EXAMPLES_DIR;

class UserToolsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    ::mkdir(project().c_str(), 0755);
  }
  std::string project() const { return home_ / "project"; }
  void InstallExample(const std::string& file) const {
    ::mkdir((home_ / ".ikigai").c_str(), 0755);
    ::mkdir((home_ / ".ikigai/tools").c_str(), 0755);
    ASSERT_EQ(
        ::symlink((kExamples + "/" + file).c_str(), (home_ / ".ikigai/tools/" + file).c_str()), 0);
  }

  ToolRun Ikigai(const std::string& prompt, const std::string& permissions = "ask") const {
    const Env env = {{"HOME", home_.path()},
                     {"OPENAI_API_KEY", AimockServer::kApiKey},
                     {"OPENAI_BASE_URL", aimock_->openai_base_url()},
                     {"ANTHROPIC_API_KEY", ""},
                     {"GEMINI_API_KEY", ""},
                     {"IKIGAI_PROVIDER", ""},
                     {"IKIGAI_MODEL", ""},
                     {"IKIGAI_PERMISSIONS", permissions}};
    return testing::RunExecutable(kIkigai, "",
                                  {.argv_extra = {"-p", prompt},
                                   .env = env,
                                   .cwd = project(),
                                   .timeout = std::chrono::seconds(60)});
  }
  // What the model got back for `call_id`, from the last request.
  static json ResultFor(const std::string& call_id) {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal && !journal->empty());
    if (!journal || journal->empty()) return json();
    for (const json& message : journal->back()["body"]["messages"]) {
      if (message["role"] == "tool" && message["tool_call_id"] == call_id)
        return json::parse(message["content"].get<std::string>(), nullptr, false);
    }
    ADD_FAILURE() << "no result for " << call_id;
    return json();
  }

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  TempDir home_;
};

// In the default ask mode: neither tool needs an approval.
TEST_F(UserToolsTest, AskUserWithoutAUserIsNoUserSoTheModelDecides) {
  const ToolRun run = Ikigai("question-please");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Decided alone."), std::string::npos) << run.out;
  const json result = ResultFor("call_question");
  EXPECT_EQ(result["tool_success"], true) << result;
  EXPECT_EQ(result["result"]["error_code"], "NO_USER") << result;
  EXPECT_NE(
      result["result"]["error"].get<std::string>().find("say in your answer what you assumed"),
      std::string::npos)
      << result;
}

TEST_F(UserToolsTest, ThePlanGoesToStderrAsAChecklist) {
  const ToolRun run = Ikigai("plan-please");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("[plan] [x] Read the code\n[plan] [>] Fix the bug\n"
                         "[plan] [ ] Run the tests\n"),
            std::string::npos)
      << run.err;
  const json result = ResultFor("call_plan");
  EXPECT_EQ(result["result"]["completed"], 1) << result;
  EXPECT_EQ(result["result"]["in_progress"], 1) << result;
  EXPECT_EQ(result["result"]["pending"], 1) << result;

  const ToolRun cleared = Ikigai("clear-please");
  EXPECT_EQ(cleared.exit_code, 0) << cleared.err;
  // A new session: there was no plan, and an empty one changes nothing.
  EXPECT_EQ(cleared.err.find("[plan]"), std::string::npos) << cleared.err;
}

TEST_F(UserToolsTest, AStatusOutsideTheThreeIsInvalidArgAndNamesTheItem) {
  const ToolRun run = Ikigai("invalid-todo-please");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("[plan]"), std::string::npos) << run.err;
  const json result = ResultFor("call_badplan");
  EXPECT_EQ(result["result"]["error_code"], "INVALID_ARG") << result;
  EXPECT_NE(result["result"]["error"].get<std::string>().find(
                "todos[0].status must be pending, in_progress or completed, got \"done\""),
            std::string::npos)
      << result;
}

TEST_F(UserToolsTest, TheShellExamplesProgressLinesGoToStderr) {
  InstallExample("checksum-tool");
  WriteFile(project() + "/a.txt", "a");
  WriteFile(project() + "/b.txt", "b");
  const ToolRun run = Ikigai("progress-please");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("[progress] checksum: hashing 1 of 2: a.txt\n"
                         "[progress] checksum: hashing 2 of 2: b.txt\n"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(ResultFor("call_progress")["result"]["checksums"].size(), 2u);
}

TEST_F(UserToolsTest, ThePythonExamplesQuestionIsNoUserHere) {
  InstallExample("choose-tool");
  const ToolRun run = Ikigai("choose-please");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ResultFor("call_choose")["result"]["error_code"], "NO_USER") << run.err;
}

}  // namespace
}  // namespace ikigai::oneshot
