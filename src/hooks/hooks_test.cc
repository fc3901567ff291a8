// Hooks in-process: the configuration, matchers, the runner (real /bin/sh
// processes) and how answers are read.
#include <gtest/gtest.h>

#include <filesystem>

#include "config/config.h"
#include "hooks/answers.h"
#include "hooks/hook_config.h"
#include "hooks/hooks.h"
#include "hooks/runner.h"
#include "testing/tool_runner.h"

namespace ikigai::hooks {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

config::EnvLookup NoEnvironment() {
  return [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
}

class HookConfigTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& layer) const { return dir_ / (layer + ".json"); }
  Result<config::Config, std::string> Load(const std::string& user,
                                           const std::string& project = "") const {
    WriteFile(Path("user"), user);
    if (!project.empty()) {
      std::filesystem::create_directories(dir_ / "p/.ikigai");
      WriteFile(dir_ / "p/.ikigai/config.json", project);
    }
    return config::LoadConfig(
        {"", Path("user"), project.empty() ? "" : dir_ / "p/.ikigai/config.json"}, NoEnvironment());
  }
  std::string Error(const std::string& user) const {
    auto loaded = Load(user);
    EXPECT_FALSE(loaded) << user;
    return loaded ? "" : loaded.error();
  }
  TempDir dir_;
};

TEST_F(HookConfigTest, HooksAreReadWithTheirDefaultsAndAddUpAcrossLayers) {
  auto loaded = Load(
      R"({"hooks": {"PreToolUse": [{"matcher": "bash", "command": "./a.sh", "timeout_ms": 5000},
                                   {"command": "./b.sh"}],
                    "Stop": [{"command": "./stop.sh"}]}})",
      R"({"hooks": {"PreToolUse": [{"matcher": "*", "command": "./project.sh"}]}})");
  ASSERT_TRUE(loaded) << loaded.error();
  const HooksConfig& hooks = loaded->hooks;
  EXPECT_EQ(hooks.size(), 4u);
  const auto& pre = hooks.For(Event::kPreToolUse);
  ASSERT_EQ(pre.size(), 3u);
  EXPECT_EQ(pre[0].matcher, "bash");
  EXPECT_EQ(pre[0].command, "./a.sh");
  EXPECT_EQ(pre[0].timeout, std::chrono::milliseconds(5000));
  EXPECT_EQ(pre[0].source, Path("user"));
  EXPECT_EQ(pre[1].matcher, "");
  EXPECT_EQ(pre[1].timeout, kDefaultTimeout);
  EXPECT_EQ(pre[2].command, "./project.sh");
  EXPECT_EQ(pre[2].matcher, "");  // "*" is every tool
  EXPECT_EQ(pre[2].source, dir_ / "p/.ikigai/config.json");
  ASSERT_EQ(hooks.For(Event::kStop).size(), 1u);
  EXPECT_TRUE(hooks.For(Event::kSessionStart).empty());
}

TEST_F(HookConfigTest, MistakesNameTheFileTheKeyAndWhatIsWrong) {
  const std::string file = Path("user") + ": ";
  EXPECT_EQ(
      Error(R"({"hooks": {"BeforeTool": []}})"),
      file + "hooks.BeforeTool: unknown hook event (known: " + std::string(kEventNames) + ")");
  EXPECT_EQ(Error(R"({"hooks": {"Stop": {"command": "x"}}})"),
            file +
                "hooks.Stop: must be a list of hooks, e.g. [{\"matcher\": \"bash\", \"command\": "
                "\"./check.sh\"}], got {\"command\":\"x\"}");
  EXPECT_EQ(Error(R"({"hooks": {"Stop": [{"matcher": "x"}]}})"),
            file + "hooks.Stop: [0]: command: missing (the command line to run)");
  EXPECT_EQ(
      Error(R"({"hooks": {"Stop": [{"command": ""}]}})"),
      file + "hooks.Stop: [0].command: must be a command line (a non-empty string), got \"\"");
  EXPECT_EQ(
      Error(R"({"hooks": {"Stop": [{"command": "x"}, {"command": "y", "timeout_ms": "5"}]}})"),
      file + "hooks.Stop: [1].timeout_ms: must be a positive integer, got \"5\"");
  EXPECT_EQ(Error(R"({"hooks": {"Stop": [{"command": "x", "timeout_ms": 600001}]}})"),
            file + "hooks.Stop: [0].timeout_ms: must be at most 600000, got 600001");
  EXPECT_EQ(Error(R"({"hooks": {"Stop": [{"command": "x", "type": "command"}]}})"),
            file + "hooks.Stop: [0]: unknown field \"type\" (known: command, matcher, timeout_ms)");
  EXPECT_EQ(Error(R"({"hooks": {"PreToolUse": [{"command": "x", "matcher": "Edit.*"}]}})"),
            file +
                "hooks.PreToolUse: [0].matcher: must be a tool name, `*`, or tool names joined by "
                "`|` (such as \"bash|file_write\"), got \"Edit.*\"");
  EXPECT_EQ(Error(R"({"hooks": {"PreToolUse": [{"command": "x", "matcher": "bash||glob"}]}})")
                .find("[0].matcher: must be a tool name"),
            file.size() + std::string("hooks.PreToolUse: ").size());
  EXPECT_EQ(Error(R"({"hooks": []})"), file + "hooks: must be an object, got []");
}

TEST(HookMatcherTest, NamesAlternativesAndWildcards) {
  EXPECT_TRUE(Matches("", "bash"));
  EXPECT_TRUE(Matches("bash", "bash"));
  EXPECT_FALSE(Matches("bash", "bash2"));
  EXPECT_FALSE(Matches("bash", "Bash"));
  EXPECT_TRUE(Matches("file_read|bash", "bash"));
  EXPECT_TRUE(Matches("file_read|bash", "file_read"));
  EXPECT_FALSE(Matches("file_read|bash", "file_write"));
  EXPECT_TRUE(Matches("*", "anything"));
  EXPECT_TRUE(Matches("mcp__*", "mcp__files__read"));
  EXPECT_FALSE(Matches("mcp__*", "bash"));
  EXPECT_TRUE(Matches("file_*|glob", "file_edit"));
  EXPECT_TRUE(Matches("*_read", "file_read"));
  EXPECT_FALSE(Matches("*_read", "file_reader"));
  EXPECT_EQ(CheckMatcher("bash|mcp__srv__*"), "");
  EXPECT_NE(CheckMatcher("bash|"), "");
  EXPECT_NE(CheckMatcher("Edit.*("), "");
}

// Runs hooks for real.
class HookRunnerTest : public ::testing::Test {
 protected:
  std::vector<HookRun> Run(const std::vector<Hook>& hooks, const std::string& input = "{}") {
    hooks_ = hooks;
    std::vector<HookJob> jobs;
    for (const Hook& hook : hooks_) jobs.push_back({&hook, input});
    return RunHooks(jobs, {.cwd = dir_.path()});
  }
  static Hook Command(std::string command, std::chrono::milliseconds timeout = kDefaultTimeout) {
    return {.matcher = "", .command = std::move(command), .timeout = timeout, .source = ""};
  }
  std::vector<Hook> hooks_;
  TempDir dir_;
};

TEST_F(HookRunnerTest, AHookGetsItsInputOnStdinInTheWorkingDirectory) {
  const auto runs = Run({Command("cat > got.json; pwd; echo oops >&2; exit 5")}, "{\"a\":1}");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].end, HookRun::End::kExited);
  EXPECT_EQ(runs[0].exit_code, 5);
  EXPECT_EQ(ReadFile(dir_ / "got.json"), "{\"a\":1}");
  EXPECT_EQ(runs[0].out, std::filesystem::canonical(dir_.path()).string() + "\n");
  EXPECT_EQ(runs[0].err, "oops\n");
}

TEST_F(HookRunnerTest, AHangingHookIsStoppedAtItsDeadline) {
  const auto runs = Run({Command("sleep 100", std::chrono::milliseconds(200)), Command("true")});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].end, HookRun::End::kTimedOut);
  EXPECT_NE(runs[0].problem.find("timed out after"), std::string::npos) << runs[0].problem;
  EXPECT_EQ(runs[1].end, HookRun::End::kExited);
  EXPECT_EQ(runs[1].exit_code, 0);
}

TEST_F(HookRunnerTest, CrashesAndCommandsThatCannotRunAreFailures) {
  const auto runs = Run({Command("kill -KILL $$"), Command("/no/such/hook-command")});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].end, HookRun::End::kFailed);
  EXPECT_EQ(runs[0].problem, "was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(runs[1].end, HookRun::End::kFailed);
  EXPECT_EQ(runs[1].problem, "could not be run (exit code 127)");
}

TEST_F(HookRunnerTest, NoSecretReachesAHook) {
  ::setenv("IKIGAI_HOOK_TEST_API_KEY", "sekrit", 1);
  const auto runs = Run({Command("echo \"[$IKIGAI_HOOK_TEST_API_KEY]\"")});
  ::unsetenv("IKIGAI_HOOK_TEST_API_KEY");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].out, "[]\n");
}

HookRun Exited(const Hook& hook, int code, std::string out, std::string err = "") {
  HookRun run;
  run.hook = &hook;
  run.end = HookRun::End::kExited;
  run.exit_code = code;
  run.out = std::move(out);
  run.err = std::move(err);
  return run;
}

HookRun Failed(const Hook& hook, HookRun::End end, std::string problem) {
  HookRun run;
  run.hook = &hook;
  run.end = end;
  run.problem = std::move(problem);
  return run;
}

TEST(HookAnswersTest, PreToolUseDenyBeatsAskBeatsAllow) {
  const Hook hook{.matcher = "", .command = "./h", .timeout = kDefaultTimeout, .source = ""};
  const std::string allow = R"({"hookSpecificOutput": {"permissionDecision": "allow"}})";
  const std::string ask =
      R"({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}})";
  using Kind = ToolDecision::Kind;
  EXPECT_EQ(JudgePreToolUse({}).kind, Kind::kNone);
  EXPECT_EQ(JudgePreToolUse({Exited(hook, 0, "plain text\n")}).kind, Kind::kNone);
  EXPECT_EQ(JudgePreToolUse({Exited(hook, 0, allow)}).kind, Kind::kAllow);
  EXPECT_EQ(JudgePreToolUse({Exited(hook, 0, R"({"decision": "approve"})")}).kind, Kind::kAllow);
  const ToolDecision asked = JudgePreToolUse({Exited(hook, 0, allow), Exited(hook, 0, ask)});
  EXPECT_EQ(asked.kind, Kind::kAsk);
  EXPECT_EQ(asked.reason, "sure?");
  const ToolDecision denied =
      JudgePreToolUse({Exited(hook, 0, ask), Exited(hook, 2, "", "  not this\n")});
  EXPECT_EQ(denied.kind, Kind::kDeny);
  EXPECT_EQ(denied.reason, "not this");
  EXPECT_TRUE(denied.notes.empty());
}

TEST(HookAnswersTest, APreToolUseHookThatFailsBlocksAndSaysSo) {
  const Hook hook{.matcher = "", .command = "./h", .timeout = kDefaultTimeout, .source = ""};
  using Kind = ToolDecision::Kind;
  for (const HookRun& run :
       {Failed(hook, HookRun::End::kTimedOut, "timed out after 1 s and was stopped"),
        Failed(hook, HookRun::End::kFailed, "was killed by signal 11 (SIGSEGV)"),
        Exited(hook, 0, "{not json"),
        Exited(hook, 0, R"({"hookSpecificOutput": {"permissionDecision": "defer"}})")}) {
    const ToolDecision decision = JudgePreToolUse({run});
    EXPECT_EQ(decision.kind, Kind::kDeny) << run.out << run.problem;
    EXPECT_NE(decision.reason.find("hook PreToolUse `./h`"), std::string::npos) << decision.reason;
    ASSERT_EQ(decision.notes.size(), 1u);
    EXPECT_NE(decision.notes[0].find("blocked"), std::string::npos) << decision.notes[0];
  }
  // Another exit code is told and ignored.
  const ToolDecision ignored = JudgePreToolUse({Exited(hook, 1, "", "warning\n")});
  EXPECT_EQ(ignored.kind, Kind::kNone);
  EXPECT_EQ(ignored.notes,
            std::vector<std::string>{"hook PreToolUse `./h` exited with 1: warning (ignored)"});
}

TEST(HookAnswersTest, UserPromptSubmitContextAndRefusals) {
  const Hook hook{.matcher = "", .command = "./h", .timeout = kDefaultTimeout, .source = ""};
  const PromptDecision context = JudgeUserPromptSubmit(
      {Exited(hook, 0, "first\n"),
       Exited(hook, 0, R"({"hookSpecificOutput": {"additionalContext": "second"}})"),
       Exited(hook, 1, "dropped", "")});
  EXPECT_FALSE(context.refused);
  EXPECT_EQ(context.context, "first\nsecond");
  EXPECT_EQ(context.notes.size(), 1u);
  EXPECT_EQ(JudgeUserPromptSubmit({Exited(hook, 2, "", "no\n")}).reason, "no");
  EXPECT_EQ(
      JudgeUserPromptSubmit({Exited(hook, 0, R"({"decision": "block", "reason": "r"})")}).reason,
      "r");
  const PromptDecision crashed =
      JudgeUserPromptSubmit({Failed(hook, HookRun::End::kFailed, "was killed by signal 9")});
  EXPECT_TRUE(crashed.refused);
  EXPECT_NE(crashed.reason.find("fails blocks"), std::string::npos) << crashed.reason;
}

TEST(HookAnswersTest, OtherEventsAreToldAndIgnored) {
  const Hook hook{.matcher = "", .command = "./h", .timeout = kDefaultTimeout, .source = ""};
  const Feedback stop = JudgeOther(
      Event::kStop, {Failed(hook, HookRun::End::kTimedOut, "timed out after 1 s and was stopped"),
                     Exited(hook, 2, "", "x"), Exited(hook, 0, "ignored output")});
  EXPECT_EQ(stop.text, "");
  EXPECT_EQ(stop.notes.size(), 2u);
  EXPECT_EQ(JudgeOther(Event::kSessionStart, {Exited(hook, 0, "welcome\n")}).text, "welcome");
  EXPECT_EQ(JudgeOther(Event::kPostToolUse,
                       {Exited(hook, 0, R"({"decision": "block", "reason": "lint failed"})")})
                .text,
            "lint failed");
}

TEST(HooksTest, AnEventWithoutHooksRunsNothing) {
  HooksConfig config;
  config.by_event[static_cast<std::size_t>(Event::kPreToolUse)].push_back(
      {.matcher = "glob", .command = "exit 2", .timeout = kDefaultTimeout, .source = ""});
  std::vector<std::string> reported;
  Hooks hooks(config, {}, [&](const std::string& line) { reported.push_back(line); });
  EXPECT_TRUE(hooks.Has(Event::kPreToolUse));
  EXPECT_FALSE(hooks.HasFor(Event::kPreToolUse, "bash"));
  EXPECT_EQ(hooks.PreToolUse("bash", nlohmann::json::object(), "c1", -1).kind,
            ToolDecision::Kind::kNone);
  EXPECT_EQ(hooks.PreToolUse("glob", nlohmann::json::object(), "c2", -1).kind,
            ToolDecision::Kind::kDeny);
  const PromptDecision prompt = hooks.UserPromptSubmit("hi", -1);
  EXPECT_FALSE(prompt.refused);
  EXPECT_EQ(prompt.context, "");
  EXPECT_TRUE(reported.empty());
}

}  // namespace
}  // namespace ikigai::hooks
