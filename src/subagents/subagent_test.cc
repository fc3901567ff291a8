// Subagents end to end: the real `ikigai -p` whose model (aimock) calls the
// real task tool, which asks the host through the host channel to start
// real `ikigai -p` subagents against the same aimock. And the service on
// its own, for background subagents, stops and the session's end.
#include "subagents/subagent_service.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "base/task_files.h"
#include "providers/testing/aimock_server.h"
#include "session/project_store.h"
#include "testing/tool_runner.h"

namespace ikigai::subagents {
namespace {

using nlohmann::json;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::TempDir;
using testing::ToolRun;
using Env = std::vector<std::pair<std::string, std::string>>;
using namespace std::chrono_literals;

const std::string kIkigai = IKIGAI_BIN;

// Two subagents meet: each one's command waits for the other's file, so
// they can only both answer if they run at the same time.
constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"toolCallId": "call_alpha"}, "response": {"content": "alpha-answer"}},
  {"match": {"toolCallId": "call_beta"}, "response": {"content": "beta-answer"}},
  {"match": {"userMessage": "sub-alpha"}, "response": {"toolCalls": [{"id": "call_alpha",
    "name": "bash", "arguments": {"command": "touch alpha.ready; n=0; until [ -e beta.ready ] || [ $n -ge 1200 ]; do sleep 0.05; n=$((n+1)); done; ls beta.ready"}}]}},
  {"match": {"userMessage": "sub-beta"}, "response": {"toolCalls": [{"id": "call_beta",
    "name": "bash", "arguments": {"command": "touch beta.ready; n=0; until [ -e alpha.ready ] || [ $n -ge 1200 ]; do sleep 0.05; n=$((n+1)); done; ls alpha.ready"}}]}},
  {"match": {"userMessage": "sub-fail"}, "response": {
    "error": {"message": "the model is not allowed here", "type": "invalid_request_error"},
    "status": 400}},
  {"match": {"toolCallId": "call_sleeper"}, "response": {"content": "slept"}},
  {"match": {"userMessage": "sub-sleep"}, "response": {"toolCalls": [{"id": "call_sleeper",
    "name": "bash", "arguments": {"command": "echo $$ > sleeper.pid; exec sleep 97.5"}}]}},
  {"match": {"userMessage": "sub-quick"}, "response": {"content": "quick-answer"}},
  {"match": {"toolCallId": "call_b"}, "response": {"content": "both answered"}},
  {"match": {"toolCallId": "call_f"}, "response": {"content": "noted the failure"}},
  {"match": {"toolCallId": "call_s"}, "response": {"content": "after the sleeper"}},
  {"match": {"toolCallId": "call_wait_bg"}, "response": {"content": "saw them end"}},
  {"match": {"toolCallId": "call_bg_sub"}, "response": {"toolCalls": [{"id": "call_wait_bg",
    "name": "bash", "arguments": {"command": "n=0; until [ $(cat $IKIGAI_SESSION_DIR/tasks/*/status.json | grep -c running) = 0 ] || [ $n -ge 1200 ]; do sleep 0.05; n=$((n+1)); done"}}]}},
  {"match": {"userMessage": "parent-background"}, "response": {"toolCalls": [
    {"id": "call_bg_cmd", "name": "bash", "arguments": {"command": "echo from-the-background; exit 3", "run_in_background": true}},
    {"id": "call_bg_sub", "name": "task", "arguments": {"prompt": "sub-quick", "description": "quick one", "background": true}}]}},
  {"match": {"userMessage": "parent-two"}, "response": {"toolCalls": [
    {"id": "call_a", "name": "task", "arguments": {"prompt": "sub-alpha", "description": "alpha"}},
    {"id": "call_b", "name": "task", "arguments": {"prompt": "sub-beta", "description": "beta"}}]}},
  {"match": {"userMessage": "parent-fail"}, "response": {"toolCalls": [
    {"id": "call_f", "name": "task", "arguments": {"prompt": "sub-fail"}}]}},
  {"match": {"toolCallId": "call_h"}, "response": {"content": "hooked done"}},
  {"match": {"userMessage": "parent-hooked"}, "response": {"toolCalls": [
    {"id": "call_h", "name": "task", "arguments": {"prompt": "sub-quick"}}]}},
  {"match": {"userMessage": "parent-sleep"}, "response": {"toolCalls": [
    {"id": "call_s", "name": "task", "arguments": {"prompt": "sub-sleep"}}]}}
]})";

bool Gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
}

template <typename Condition>
bool Within(std::chrono::milliseconds limit, Condition condition) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > until) return false;
    ::usleep(20 * 1000);
  }
  return true;
}

// Live processes whose command line holds `marker`.
std::vector<pid_t> ProcessesWith(const std::string& marker) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream file(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(file)), {});
    const pid_t pid = std::stoi(name);
    if (cmdline.find(marker) != std::string::npos && pid != ::getpid() && !Gone(pid)) {
      found.push_back(pid);
    }
  }
  return found;
}

std::string UniqueModel() {
  std::random_device random;
  return "gpt-4.1-test-" + std::to_string(random());
}

class SubagentTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    ::mkdir(project().c_str(), 0755);
    ASSERT_TRUE(session::ProjectStore(home_ / ".ikigai/projects.json").SetTrusted(project(), true));
  }
  void TearDown() override {
    for (pid_t pid : ProcessesWith(model_)) ::kill(pid, SIGKILL);
  }

  std::string project() const { return home_ / "project"; }
  Env Environment() const {
    return {{"HOME", home_.path()},
            {"OPENAI_API_KEY", AimockServer::kApiKey},
            {"OPENAI_BASE_URL", aimock_->openai_base_url()},
            {"ANTHROPIC_API_KEY", ""},
            {"GEMINI_API_KEY", ""},
            {"IKIGAI_PROVIDER", ""},
            {"IKIGAI_MODEL", ""},
            {"IKIGAI_TOOL_TIMEOUT_MS", ""},
            {"IKIGAI_SUBAGENT", ""},
            {"IKIGAI_PERMISSIONS", "auto"}};
  }
  ToolRun Parent(const std::string& prompt) const {
    return testing::RunExecutable(kIkigai, "",
                                  {.argv_extra = {"--provider", "openai", "--model", model_, "-p",
                                                  prompt, "--output", "json"},
                                   .env = Environment(),
                                   .cwd = project(),
                                   .timeout = 120s});
  }
  // The request bodies aimock got whose last user message is `prompt`.
  std::vector<json> RequestsFor(const std::string& prompt) const {
    std::vector<json> found;
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    if (!journal) return found;
    for (const json& entry : *journal) {
      const json& messages = entry["body"]["messages"];
      for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
        if ((*it)["role"] != "user") continue;
        if ((*it)["content"] == prompt) found.push_back(entry["body"]);
        break;
      }
    }
    return found;
  }
  static std::vector<std::string> ToolNames(const json& body) {
    std::vector<std::string> names;
    for (const json& tool : body["tools"]) names.push_back(tool["function"]["name"]);
    return names;
  }
  static json CallResult(const ToolRun& run, const std::string& id) {
    for (const auto& call : run.json["tool_calls"]) {
      if (call["id"] == id) return json::parse(call["result"].dump());
    }
    ADD_FAILURE() << "no call " << id << " in " << run.out;
    return json();
  }

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  TempDir home_;
  const std::string model_ = UniqueModel();
};

TEST_F(SubagentTest, TwoTaskCallsOfOneTurnRunTwoSubagentsAtOnce) {
  auto run = Parent("parent-two");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_EQ(run.json["text"], "both answered");
  for (const auto& [id, answer] : std::vector<std::pair<std::string, std::string>>{
           {"call_a", "alpha-answer"}, {"call_b", "beta-answer"}}) {
    const json result = CallResult(run, id);
    EXPECT_EQ(result["tool_success"], true) << result;
    EXPECT_EQ(result["result"]["text"], answer) << result;
    EXPECT_EQ(result["result"]["rounds"], 2) << result;
    EXPECT_TRUE(result["result"]["task_id"].get<std::string>().starts_with("task_")) << result;
    EXPECT_TRUE(result["result"]["usage"].is_object()) << result;
  }
  // Each one's command saw the other's file: they ran at the same time.
  EXPECT_TRUE(std::filesystem::exists(project() + "/alpha.ready"));
  EXPECT_TRUE(std::filesystem::exists(project() + "/beta.ready"));

  // The subagents got the parent's model, and no task tool (no recursion);
  // the parent had it.
  const auto parent = RequestsFor("parent-two");
  ASSERT_FALSE(parent.empty());
  const auto parent_tools = ToolNames(parent.front());
  EXPECT_NE(std::find(parent_tools.begin(), parent_tools.end(), "task"), parent_tools.end());
  for (const std::string prompt : {"sub-alpha", "sub-beta"}) {
    const auto requests = RequestsFor(prompt);
    ASSERT_EQ(requests.size(), 2u) << prompt;
    EXPECT_EQ(requests.front()["model"], model_);
    const auto tools = ToolNames(requests.front());
    EXPECT_NE(std::find(tools.begin(), tools.end(), "bash"), tools.end());
    EXPECT_EQ(std::find(tools.begin(), tools.end(), "task"), tools.end()) << prompt;
  }
}

// A subagent is an `ikigai -p` of its own: the user's hooks run in it too,
// told that it is a subagent.
TEST_F(SubagentTest, HooksRunInSubagentsWhichSayWhatTheyAre) {
  std::filesystem::create_directories(home_ / ".ikigai");
  testing::WriteFile(
      home_ / ".ikigai/config.json",
      R"({"hooks": {"UserPromptSubmit": [{"command": "cat >> prompts.jsonl; echo >> prompts.jsonl"}]}})");
  auto run = Parent("parent-hooked");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_EQ(run.json["text"], "hooked done");
  std::ifstream lines(project() + "/prompts.jsonl");
  std::map<std::string, json> by_prompt;
  for (std::string line; std::getline(lines, line);) {
    const json input = json::parse(line, nullptr, false);
    if (input.is_object()) by_prompt[input.value("prompt", "")] = input;
  }
  ASSERT_EQ(by_prompt.size(), 2u);
  EXPECT_FALSE(by_prompt["parent-hooked"].contains("subagent")) << by_prompt["parent-hooked"];
  EXPECT_EQ(by_prompt["sub-quick"].value("subagent", false), true) << by_prompt["sub-quick"];
  EXPECT_NE(by_prompt["sub-quick"]["session_id"], by_prompt["parent-hooked"]["session_id"]);
}

TEST_F(SubagentTest, TasksThatEndWhileTheModelWorksAreToldInTheNextRequest) {
  // A background command and a background subagent start; the next round's
  // command waits until both have ended; the request after it says so.
  auto run = Parent("parent-background");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_EQ(run.json["text"], "saw them end");
  const json command = CallResult(run, "call_bg_cmd");
  EXPECT_EQ(command["result"]["status"], "running") << command;
  const std::string command_id = command["result"]["task_id"];
  EXPECT_TRUE(command_id.starts_with("bg_")) << command;
  const json subagent = CallResult(run, "call_bg_sub");
  EXPECT_EQ(subagent["result"]["status"], "running") << subagent;
  const std::string subagent_id = subagent["result"]["task_id"];
  EXPECT_TRUE(subagent_id.starts_with("task_")) << subagent;

  // Each ended task is told once, in the first request after its end: the
  // command's may have ended during the first round already.
  const auto requests = RequestsFor("parent-background");
  ASSERT_EQ(requests.size(), 3u);
  std::string told;
  for (const json& request : requests) {
    for (const json& message : request["messages"]) {
      if (message["role"] != "tool") continue;
      const json result = json::parse(message["content"].get<std::string>(), nullptr, false);
      if (result.contains("background_tasks_ended"))
        told += result["background_tasks_ended"].dump();
    }
  }
  const std::string command_line = "Background task " + command_id +
                                   " (echo from-the-background; exit 3) completed with exit code 3";
  const std::string subagent_line =
      "Background subagent " + subagent_id + " (quick one) completed with exit code 0";
  EXPECT_NE(told.find(command_line), std::string::npos) << told;
  EXPECT_NE(told.find(subagent_line), std::string::npos) << told;
  // Once each: the last request repeats the earlier messages, so each line
  // appears in it once, and in no other tool result.
  const std::string last = requests.back().dump();
  EXPECT_EQ(last.find(command_id + " (echo"), last.rfind(command_id + " (echo")) << last;
  EXPECT_EQ(last.find(subagent_line), last.rfind(subagent_line)) << last;
  // The user sees them too.
  EXPECT_NE(run.err.find("[task] " + command_line), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("[task] " + subagent_line), std::string::npos) << run.err;
}

TEST_F(SubagentTest, ASubagentWhoseProviderFailsIsReportedAsAResult) {
  auto run = Parent("parent-fail");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_EQ(run.json["text"], "noted the failure");
  const json result = CallResult(run, "call_f");
  EXPECT_EQ(result["tool_success"], true) << result;
  EXPECT_EQ(result["result"]["error_code"], "SUBAGENT_FAILED") << result;
  EXPECT_NE(result["result"]["error"].get<std::string>().find("not allowed here"),
            std::string::npos)
      << result;
  EXPECT_FALSE(result["result"]["subagent_error_code"].get<std::string>().empty()) << result;
}

TEST_F(SubagentTest, StoppingTheParentStopsItsSubagentAndWhatItRuns) {
  // SIGINT (Ctrl+C), then SIGKILL, which no handler sees: the guard.
  for (const int signal : {SIGINT, SIGKILL}) {
    SCOPED_TRACE(signal);
    std::filesystem::remove(project() + "/sleeper.pid");
    const std::string pid_file = project() + "/sleeper.pid";
    const std::string script = "'" + kIkigai + "' --provider openai --model " + model_ +
                               " -p parent-sleep > /dev/null & pid=$!\n"
                               "n=0; until [ -s '" +
                               pid_file +
                               "' ] || [ $n -ge 1200 ]; do sleep 0.05; n=$((n+1)); done\n"
                               // The subagent's command line, while it runs.
                               "for p in /proc/[0-9]*; do [ $p = /proc/$pid ] || [ $p = /proc/$$ ] "
                               "|| ! grep -q -- '" +
                               model_ +
                               "' $p/cmdline 2>/dev/null || cat $p/cmdline > subagent.cmdline; "
                               "done\n"
                               "kill -" +
                               std::to_string(signal) + " $pid; wait $pid\n";
    auto run = testing::RunExecutable(
        "/bin/sh", "", {.argv_extra = {"-c", script}, .env = Environment(), .cwd = project()});
    EXPECT_EQ(run.exit_code, 128 + signal) << run.err;
    ASSERT_TRUE(std::filesystem::exists(pid_file)) << "the subagent's command never ran";
    if (signal == SIGINT) {
      // The subagent got the parent's mode and trust (the script's record of
      // its command line, made while it ran).
      const std::string cmdline = testing::ReadFile(project() + "/subagent.cmdline");
      EXPECT_NE(cmdline.find(std::string("--permissions\0auto\0", 19)), std::string::npos);
      EXPECT_NE(cmdline.find(std::string("--trust", 7)), std::string::npos);
      EXPECT_NE(cmdline.find(std::string("--model\0", 8) + model_), std::string::npos);
    }
    const pid_t sleeper = std::stoi(testing::ReadFile(pid_file));
    EXPECT_TRUE(Within(10s, [&] { return Gone(sleeper); })) << "its command kept running";
    EXPECT_TRUE(Within(10s, [&] { return ProcessesWith(model_).empty(); }))
        << "the subagent kept running";
  }
}

// The service on its own: a real subagent (this build's ikigai) against
// aimock, in a session directory of the test's.
class SubagentServiceTest : public SubagentTest {
 protected:
  void SetUp() override {
    SubagentTest::SetUp();
    for (const auto& [name, value] : Environment()) ::setenv(name.c_str(), value.c_str(), 1);
    ::setenv("IKIGAI_SESSION_DIR", session_.path().c_str(), 1);
    ASSERT_EQ(::chdir(project().c_str()), 0);
  }
  void TearDown() override {
    ASSERT_EQ(::chdir("/"), 0);
    ::unsetenv("IKIGAI_SESSION_DIR");
    SubagentTest::TearDown();
  }
  SubagentSettings Settings() const {
    SubagentSettings settings;
    settings.executable = kIkigai;
    settings.provider = "openai";
    settings.model = model_;
    settings.permissions = "auto";
    settings.trusted = true;
    settings.max_rounds = 5;
    return settings;
  }
  static std::string TaskDir(const json& started) {
    return tasks::TasksDirectory() + "/" + started["task_id"].get<std::string>();
  }
  static tasks::TaskStatus WaitForEnd(const std::string& dir) {
    tasks::TaskStatus last;
    EXPECT_TRUE(Within(60s, [&] {
      auto status = tasks::ReadStatus(dir);
      if (status) last = *status;
      return status && status->Ended();
    }));
    return last;
  }
  TempDir session_;
};

TEST_F(SubagentServiceTest, ABackgroundSubagentAnswersAtOnceThenWritesItsTask) {
  SubagentService service([this] { return Settings(); });
  auto started =
      service.Call("subagent/start", {{"prompt", "sub-quick"}, {"background", true}}, {});
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_EQ((*started)["status"], "running");
  const std::string dir = TaskDir(*started);
  EXPECT_EQ((*started)["output_file"], dir + "/output");
  const tasks::TaskStatus status = WaitForEnd(dir);
  EXPECT_EQ(status.status, "completed");
  EXPECT_EQ(status.kind, "subagent");
  EXPECT_EQ(status.description, "sub-quick");
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_EQ(testing::ReadFile(dir + "/output"), "quick-answer");
  EXPECT_EQ(service.Summary().finished, 1);
}

TEST_F(SubagentServiceTest, KillShellAndTaskOutputWorkOnSubagentTasks) {
  SubagentService service([this] { return Settings(); });
  const Env session = {{"IKIGAI_SESSION_DIR", session_.path()}};
  // kill_shell at once, before the subagent has even started: the task
  // has an owner reading its control FIFO from the answer on.
  auto started =
      service.Call("subagent/start", {{"prompt", "sub-sleep"}, {"background", true}}, {});
  ASSERT_TRUE(started) << started.error().message;
  const std::string id = (*started)["task_id"];
  auto killed = testing::RunTool("kill_shell", {{"task_id", id}}, {.env = session});
  EXPECT_EQ(killed.json["status"], "killed") << killed.out;
  EXPECT_EQ(WaitForEnd(TaskDir(*started)).status, "killed");
  EXPECT_TRUE(Within(10s, [&] { return ProcessesWith(model_).empty(); }));

  // Once it runs its command, too: the command goes with it.
  started = service.Call("subagent/start", {{"prompt", "sub-sleep"}, {"background", true}}, {});
  ASSERT_TRUE(started) << started.error().message;
  const std::string pid_file = project() + "/sleeper.pid";
  ASSERT_TRUE(Within(60s, [&] {
    std::error_code error;
    return std::filesystem::file_size(pid_file, error) > 0 && !error;
  }));
  killed = testing::RunTool("kill_shell", {{"task_id", (*started)["task_id"]}}, {.env = session});
  EXPECT_EQ(killed.json["status"], "killed") << killed.out;
  const pid_t sleeper = std::stoi(testing::ReadFile(pid_file));
  EXPECT_TRUE(Within(10s, [&] { return Gone(sleeper); })) << "its command kept running";
  EXPECT_TRUE(Within(10s, [&] { return ProcessesWith(model_).empty(); }));

  // task_output waits for a subagent's answer and reads it.
  started = service.Call("subagent/start", {{"prompt", "sub-quick"}, {"background", true}}, {});
  ASSERT_TRUE(started) << started.error().message;
  auto read = testing::RunTool(
      "task_output", {{"task_id", (*started)["task_id"]}, {"wait", true}, {"timeout", 60}},
      {.env = session});
  EXPECT_EQ(read.json["status"], "completed") << read.out;
  EXPECT_EQ(read.json["kind"], "subagent") << read.out;
  EXPECT_EQ(read.json["output"], "quick-answer") << read.out;
}

TEST_F(SubagentServiceTest, AtMostFourRunTheFifthWhenASlotFreesAndTheSessionsEndStopsAll) {
  {
    SubagentService service([this] { return Settings(); });
    std::vector<std::string> ids;
    for (int i = 0; i < 6; ++i) {
      auto started =
          service.Call("subagent/start", {{"prompt", "sub-sleep"}, {"background", true}}, {});
      ASSERT_TRUE(started) << started.error().message;
      ids.push_back((*started)["task_id"]);
    }
    const auto summary_is = [&](int running, int waiting) {
      return Within(60s, [&] {
        const SubagentSummary summary = service.Summary();
        return summary.running == running && summary.waiting == waiting;
      });
    };
    ASSERT_TRUE(summary_is(kMaxRunning, 2));
    EXPECT_TRUE(Within(60s, [&] { return ProcessesWith(model_).size() == kMaxRunning; }));
    // subagent/stop ends a waiting one before it starts...
    auto stopped = service.Call("subagent/stop", {{"task_id", ids[5]}}, {});
    ASSERT_TRUE(stopped) << stopped.error().message;
    EXPECT_EQ((*stopped)["status"], "stopping");
    EXPECT_TRUE(summary_is(kMaxRunning, 1));
    EXPECT_EQ(WaitForEnd(tasks::TasksDirectory() + "/" + ids[5]).status, "killed");
    // ...and a running one, whose slot goes to the one still waiting.
    ASSERT_TRUE(service.Call("subagent/stop", {{"task_id", ids[0]}}, {}));
    EXPECT_EQ(WaitForEnd(tasks::TasksDirectory() + "/" + ids[0]).status, "killed");
    EXPECT_TRUE(summary_is(kMaxRunning, 0));
    EXPECT_TRUE(Within(60s, [&] { return ProcessesWith(model_).size() == kMaxRunning; }));
  }  // the session ends
  EXPECT_TRUE(ProcessesWith(model_).empty()) << "a subagent outlived the session";
  EXPECT_TRUE(Within(10s, [&] { return ProcessesWith("sleep 97.5").empty(); }));
}

TEST_F(SubagentServiceTest, StopAllStopsWhatRunsAndTheServiceGoesOn) {
  // What the REPL does when the mode becomes narrower than theirs.
  SubagentService service([this] { return Settings(); });
  std::vector<std::string> dirs;
  for (int i = 0; i < 2; ++i) {
    auto started =
        service.Call("subagent/start", {{"prompt", "sub-sleep"}, {"background", true}}, {});
    ASSERT_TRUE(started) << started.error().message;
    dirs.push_back(TaskDir(*started));
  }
  ASSERT_TRUE(Within(60s, [&] { return service.Summary().running == 2; }));
  EXPECT_EQ(service.StopAll(), 2);
  for (const std::string& dir : dirs) EXPECT_EQ(WaitForEnd(dir).status, "killed");
  EXPECT_TRUE(Within(10s, [&] { return ProcessesWith(model_).empty(); }));
  EXPECT_EQ(service.StopAll(), 0);
  auto quick = service.Call("subagent/start", {{"prompt", "sub-quick"}}, {});
  ASSERT_TRUE(quick) << quick.error().message;
  EXPECT_EQ((*quick)["text"], "quick-answer");
}

TEST_F(SubagentServiceTest, BadRequestsGetClearErrors) {
  SubagentService service([this] { return Settings(); });
  auto empty = service.Call("subagent/start", {{"prompt", "  "}}, {});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, hostapi::rpc_code::kInvalidParams);
  EXPECT_NE(empty.error().message.find("prompt"), std::string::npos);
  auto typed = service.Call("subagent/start", {{"prompt", "x"}, {"background", "yes"}}, {});
  ASSERT_FALSE(typed);
  EXPECT_NE(typed.error().message.find("background"), std::string::npos);
  auto unknown = service.Call("subagent/fly", json::object(), {});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, hostapi::rpc_code::kMethodNotFound);
  auto stop = service.Call("subagent/stop", {{"task_id", "task_00000000"}}, {});
  ASSERT_FALSE(stop);
  EXPECT_NE(stop.error().message.find("task_00000000"), std::string::npos);
}

}  // namespace
}  // namespace ikigai::subagents
