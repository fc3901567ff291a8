// task_output-tool through its executable, on real background commands
// started by the bash tool in a session directory of the test's own.
#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "base/task_files.h"
#include "testing/background_tasks.h"

namespace {

using ikigai::testing::Eventually;
using ikigai::testing::Json;
using ikigai::testing::LiveProcessesOf;
using ikigai::testing::ReadFile;
using ikigai::testing::TaskSession;
using ikigai::testing::ToolRun;

constexpr std::size_t kHostLimit = 64 * 1024;

std::string WaitFor(const std::string& gate) {
  return "while [ ! -e '" + gate + "' ]; do sleep 0.02; done";
}

TEST(TaskOutput, OutputComesInDisjointConsecutivePieces) {
  TaskSession session;
  const std::string gate = session.dir() + "/gate";
  const std::string id = session.Start("echo first; " + WaitFor(gate) + "; echo second");
  const std::string output_file = session.TaskDir(id) + "/output";
  ASSERT_TRUE(Eventually([&] { return ReadFile(output_file) == "first\n"; }));

  Json answer = session.Output(id);
  EXPECT_EQ(answer.value("task_id", ""), id) << answer;
  EXPECT_EQ(answer.value("kind", ""), "bash");
  EXPECT_EQ(answer.value("status", ""), "running");
  EXPECT_FALSE(answer.contains("exit_code"));
  EXPECT_EQ(answer.value("output", ""), "first\n");
  EXPECT_EQ(answer.value("offset", -1), 0);
  EXPECT_EQ(answer.value("next_offset", -1), 6);
  EXPECT_EQ(answer.value("output_file", ""), output_file);

  answer = session.Output(id);  // nothing new
  EXPECT_EQ(answer.value("output", "?"), "") << answer;
  EXPECT_EQ(answer.value("offset", -1), 6);

  ikigai::testing::WriteFile(gate, "");
  answer = session.Output(id, {{"wait", true}});
  EXPECT_EQ(answer.value("status", ""), "completed") << answer;
  EXPECT_EQ(answer.value("exit_code", -1), 0);
  EXPECT_EQ(answer.value("output", ""), "second\n");
  EXPECT_EQ(answer.value("offset", -1), 6);
  EXPECT_EQ(answer.value("next_offset", -1), 13);
  EXPECT_EQ(session.Output(id).value("output", "?"), "");
}

TEST(TaskOutput, WaitReturnsWhenTheTaskEndsWithItsExitCode) {
  TaskSession session;
  const std::string id = session.Start("sleep 1; echo failing >&2; exit 7");
  const Json answer = session.Output(id, {{"wait", true}});
  EXPECT_EQ(answer.value("status", ""), "completed") << answer;
  EXPECT_EQ(answer.value("exit_code", -1), 7);
  EXPECT_EQ(answer.value("output", ""), "failing\n");
  EXPECT_FALSE(answer.contains("note")) << answer;
}

TEST(TaskOutput, WaitWithATimeoutAnswersRunningWhenItPasses) {
  TaskSession session;
  const std::string id = session.Start(WaitFor(session.dir() + "/never"));
  const ToolRun run =
      session.Tool("task_output", {{"task_id", id}, {"wait", true}, {"timeout", 1}});
  EXPECT_EQ(run.json.value("status", ""), "running") << run.out;
  EXPECT_GE(run.seconds, 0.9) << "it waited";
  EXPECT_NE(run.json.value("note", "").find("Still running"), std::string::npos) << run.out;
  // timeout 0 only looks.
  EXPECT_EQ(session.Output(id, {{"wait", true}, {"timeout", 0}}).value("status", ""), "running");
}

TEST(TaskOutput, WaitNeverPassesTheHostsDeadline) {
  TaskSession session;
  const std::string id = session.Start(WaitFor(session.dir() + "/never"));
  auto options = session.Options();
  options.env.push_back({"IKIGAI_TOOL_DEADLINE_MS", "1500"});
  const ToolRun run = ikigai::testing::RunTool(
      "task_output", {{"task_id", id}, {"wait", true}, {"timeout", 300}}, options);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.json.value("status", ""), "running") << run.out;
  EXPECT_LT(run.seconds, 60) << "not the 300 s asked for";
}

TEST(TaskOutput, LongOutputIsCutAndTheRestComesWithTheNextCalls) {
  TaskSession session;
  const std::string id = session.Start("seq 1 40000");
  ASSERT_TRUE(Eventually([&] { return session.Status(id) == "completed"; }));
  const std::string whole = ReadFile(session.TaskDir(id) + "/output");
  ASSERT_GT(whole.size(), 3 * kHostLimit);
  std::string joined;
  int calls = 0;
  for (;; ++calls) {
    ASSERT_LT(calls, 20);
    const ToolRun run = session.Tool("task_output", {{"task_id", id}});
    ASSERT_LT(run.out.size(), kHostLimit);
    const Json& answer = run.json;
    std::string output = answer.value("output", "");
    if (!answer.value("truncated", false)) {
      joined += output;
      break;
    }
    EXPECT_GT(answer.value("remaining_bytes", 0u), 0u);
    // The marker is the last line; the text before it ends at a line.
    const std::size_t marker = output.rfind("\n[... ");
    ASSERT_NE(marker, std::string::npos) << output.substr(output.size() - 200);
    EXPECT_NE(output.find("call task_output again", marker), std::string::npos);
    joined += output.substr(0, marker + 1);
  }
  EXPECT_GE(calls, 3);
  EXPECT_EQ(joined, whole);
}

TEST(TaskOutput, InvalidUtf8IsRepairedAndACharacterIsNeverSplit) {
  TaskSession session;
  const std::string id = session.Start("printf 'caf\\303\\251 \\377 end'");
  ASSERT_TRUE(Eventually([&] { return session.Status(id) == "completed"; }));
  EXPECT_EQ(session.Output(id).value("output", ""), "caf\xC3\xA9 \xEF\xBF\xBD end");
}

TEST(TaskOutput, ATaskWhoseSupervisorWasKilledIsFailed) {
  TaskSession session;
  const std::string id = session.Start("echo before; sleep 300");
  const pid_t supervisor = session.SupervisorSession();
  ASSERT_TRUE(Eventually([&] { return ikigai::testing::CountNamed(supervisor, "sleep") == 1; }));
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  ASSERT_TRUE(Eventually([&] {
    const auto live = LiveProcessesOf(supervisor, true);
    return std::find(live.begin(), live.end(), supervisor) == live.end();
  }));
  const Json answer = session.Output(id, {{"wait", true}});
  EXPECT_EQ(answer.value("status", ""), "failed") << answer;
  EXPECT_EQ(answer.value("output", ""), "before\n");
  EXPECT_NE(answer.value("note", "").find("exit code is unknown"), std::string::npos);
  EXPECT_EQ(session.Kill(id).value("error_code", ""), "OWNER_GONE");
  // What the command left is the host guard's to end with the session; here
  // the test's.
  for (pid_t pid : LiveProcessesOf(supervisor, true)) ::kill(pid, SIGKILL);
}

TEST(TaskOutput, UnknownIdIsNotFoundAsSeed004) {
  TaskSession session;
  const Json answer = session.Output("bg_00000000");
  EXPECT_EQ(answer.value("error_code", ""), "NOT_FOUND") << answer;
  EXPECT_TRUE(answer.value("error", "").starts_with("Task not found: bg_00000000")) << answer;
}

TEST(TaskOutput, MalformedIdsAreNotFoundAndNeverPaths) {
  TaskSession session;
  session.Start("true");
  for (const std::string id : {"", "..", "../tasks", "bg_", "bg_123", "BG_00000000", "bg_0000000g",
                               "bg_00000000/../x", "nonexistent"}) {
    const Json answer = session.Output(id);
    EXPECT_EQ(answer.value("error_code", ""), "NOT_FOUND") << id << ": " << answer;
    EXPECT_TRUE(answer.value("error", "").starts_with("Task not found: " + id)) << answer;
  }
}

TEST(TaskOutput, WithoutASessionEveryIdIsNotFoundAndSaysWhy) {
  const ToolRun run = ikigai::testing::RunTool("task_output", {{"task_id", "bg_00000000"}},
                                               {.env = {{"IKIGAI_SESSION_DIR", ""}}});
  EXPECT_EQ(run.json.value("error_code", ""), "NOT_FOUND") << run.out;
  EXPECT_NE(run.json.value("error", "").find("IKIGAI_SESSION_DIR"), std::string::npos);
}

TEST(TaskOutput, BadInputIsAClearError) {
  TaskSession session;
  const std::string id = session.Start("true");
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json::object(), "task_id"},
      {{{"task_id", 12}}, "task_id"},
      {{{"task_id", id}, {"wait", "yes"}}, "wait"},
      {{{"task_id", id}, {"timeout", "5"}}, "timeout"},
      {{{"task_id", id}, {"timeout", -1}}, "timeout"},
  };
  for (const auto& [args, mentions] : cases) {
    const ToolRun run = session.Tool("task_output", args);
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_EQ(run.json.value("error_code", ""), "INVALID_ARG") << args << ": " << run.out;
    EXPECT_NE(run.json.value("error", "").find(mentions), std::string::npos) << run.out;
  }
  EXPECT_EQ(ikigai::testing::RunToolRaw("task_output", "not json", session.Options())
                .json.value("error_code", ""),
            "INVALID_ARG");
}

TEST(TaskOutput, Schema) {
  const ToolRun run = ikigai::testing::RunToolRaw("task_output", "", {.argv_extra = {"--schema"}});
  ASSERT_TRUE(run.json.is_object()) << run.out;
  EXPECT_EQ(run.json["name"], "task_output");
  EXPECT_EQ(run.json["parameters"]["required"], Json::array({"task_id"}));
  EXPECT_EQ(run.json["parameters"]["properties"]["timeout"]["type"], "integer");
  EXPECT_EQ(run.json["annotations"]["readOnlyHint"], true);
}

}  // namespace
