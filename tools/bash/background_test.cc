// bash with run_in_background (background.h): the answer, the supervisor,
// and how the command ends. Real processes in a session directory of the
// test's own; waits are on conditions, never on time.
#include <signal.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/task_files.h"
#include "testing/background_tasks.h"

namespace {

using ikigai::testing::CountNamed;
using ikigai::testing::Eventually;
using ikigai::testing::Json;
using ikigai::testing::LiveProcessesOf;
using ikigai::testing::ReadFile;
using ikigai::testing::TaskSession;
using ikigai::testing::ToolRun;

// A command that ends only once the test creates `gate`, then prints `word`.
std::string GatedEcho(const std::string& gate, const std::string& word) {
  return "while [ ! -e '" + gate + "' ]; do sleep 0.02; done; echo " + word;
}

void Touch(const std::string& path) { ikigai::testing::WriteFile(path, ""); }

TEST(BashBackground, AnswersAtOnceWithoutWaitingForTheCommand) {
  TaskSession session;
  const std::string gate = session.dir() + "/gate";
  const ToolRun run =
      session.Tool("bash", {{"command", GatedEcho(gate, "passed")}, {"run_in_background", true}});
  // The command cannot have ended: the gate does not exist yet.
  ASSERT_EQ(run.json.value("status", ""), "running") << run.out;
  const std::string id = run.json.value("task_id", "");
  EXPECT_TRUE(id.starts_with("bg_") && ikigai::tasks::ValidTaskId(id)) << id;
  EXPECT_EQ(run.json.value("output_file", ""), session.TaskDir(id) + "/output");
  EXPECT_NE(run.json.value("output", "").find("task_output"), std::string::npos);
  EXPECT_EQ(session.Status(id), "running");
  Touch(gate);
  ASSERT_TRUE(Eventually([&] { return session.Status(id) == "completed"; }));
  EXPECT_EQ(ReadFile(session.TaskDir(id) + "/output"), "passed\n");
  const auto status = ikigai::tasks::ReadStatus(session.TaskDir(id));
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 0);
  EXPECT_EQ(status->kind, "bash");
  EXPECT_EQ(status->description, GatedEcho(gate, "passed"));
  EXPECT_GE(status->ended_ms, status->started_ms);
}

TEST(BashBackground, WithoutASessionDirectoryItIsAClearError) {
  const ToolRun run =
      ikigai::testing::RunTool("bash", {{"command", "sleep 30"}, {"run_in_background", true}},
                               {.env = {{"IKIGAI_SESSION_DIR", ""}}});
  EXPECT_EQ(run.json.value("error_code", ""), "NO_SESSION") << run.out;
  const std::string message = run.json.value("error", "");
  EXPECT_NE(message.find("IKIGAI_SESSION_DIR"), std::string::npos) << message;
  EXPECT_NE(message.find("foreground"), std::string::npos) << message;
}

TEST(BashBackground, BlockedAndEmptyCommandsAreNotStarted) {
  TaskSession session;
  ToolRun run = session.Tool("bash", {{"command", "rm -rf /"}, {"run_in_background", true}});
  EXPECT_EQ(run.json.value("error_code", ""), "BLOCKED") << run.out;
  run = session.Tool("bash", {{"command", "  "}, {"run_in_background", true}});
  EXPECT_EQ(run.json.value("error_code", ""), "INVALID_ARG") << run.out;
  run = session.Tool("bash", {{"command", "true"}, {"run_in_background", "yes"}});
  EXPECT_EQ(run.json.value("error_code", ""), "INVALID_ARG") << run.out;
  EXPECT_TRUE(session.TaskIds().empty());
}

TEST(BashBackground, RunsInTheWorkingDirectoryWithTheCommandsEnvironment) {
  TaskSession session;
  const std::string id = session.Start("pwd; echo \"$PAGER ${IKIGAI_TOOL_DEADLINE_MS-unset}\"",
                                       {{"working_directory", session.dir()}});
  ASSERT_TRUE(Eventually([&] { return session.Status(id) == "completed"; }));
  EXPECT_EQ(ReadFile(session.TaskDir(id) + "/output"), session.dir() + "\ncat unset\n");
}

TEST(BashBackground, TheSupervisorIsRegisteredAndTheCommandHasItsOwnGroup) {
  TaskSession session;
  const std::string id = session.Start("sleep 300");
  const pid_t supervisor = session.SupervisorSession();
  ASSERT_GT(supervisor, 1);
  // The file holds the leader's start time, for the host's guard.
  EXPECT_FALSE(ReadFile(session.dir() + "/process-groups/" + std::to_string(supervisor)).empty());
  ASSERT_TRUE(Eventually([&] { return CountNamed(supervisor, "sleep") == 1; }));
  // The shell and the command: a group of their own in the supervisor's
  // session.
  for (pid_t pid : LiveProcessesOf(supervisor, true)) {
    if (pid != supervisor) {
      EXPECT_NE(::getpgid(pid), supervisor);
    }
  }
  EXPECT_EQ(LiveProcessesOf(supervisor, false), std::vector<pid_t>{supervisor});
  EXPECT_EQ(ReadFile("/proc/" + std::to_string(supervisor) + "/comm"), "ikigai-task\n");
}

TEST(BashBackground, RemovingTheTaskDirectoryEndsTheCommand) {
  TaskSession session;
  const std::string id = session.Start("sleep 300 & sleep 300 & wait");
  const pid_t supervisor = session.SupervisorSession();
  ASSERT_TRUE(Eventually([&] { return CountNamed(supervisor, "sleep") == 2; }));
  std::filesystem::remove_all(session.TaskDir(id));
  EXPECT_TRUE(Eventually([&] { return LiveProcessesOf(supervisor, true).empty(); }));
}

TEST(BashBackground, SigtermToTheSupervisorKillsTheCommandAndIsRecorded) {
  TaskSession session;
  const std::string id = session.Start("sleep 300");
  const pid_t supervisor = session.SupervisorSession();
  ASSERT_TRUE(Eventually([&] { return CountNamed(supervisor, "sleep") == 1; }));
  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
  ASSERT_TRUE(Eventually([&] { return session.Status(id) == "killed"; }));
  EXPECT_EQ(ikigai::tasks::ReadStatus(session.TaskDir(id))->exit_code, 128 + SIGTERM);
  EXPECT_TRUE(Eventually([&] { return LiveProcessesOf(supervisor, true).empty(); }));
}

TEST(BashBackground, TimeoutSecondsKillsTheCommand) {
  TaskSession session;
  const std::string id = session.Start("echo started; sleep 300", {{"timeout_seconds", 1}});
  ASSERT_TRUE(Eventually([&] { return session.Status(id) == "killed"; }));
  const std::string output = ReadFile(session.TaskDir(id) + "/output");
  EXPECT_TRUE(output.starts_with("started\n")) << output;
  EXPECT_NE(output.find("timeout_seconds"), std::string::npos) << output;
}

TEST(BashBackground, AMissingWorkingDirectoryIsCheckedBeforeTheStart) {
  TaskSession session;
  const ToolRun run = session.Tool("bash", {{"command", "true"},
                                            {"run_in_background", true},
                                            {"working_directory", session.dir() + "/none"}});
  EXPECT_EQ(run.json.value("error_code", ""), "INVALID_ARG") << run.out;
  EXPECT_TRUE(session.TaskIds().empty());
}

}  // namespace
