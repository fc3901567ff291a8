// kill_shell-tool through its executable: background commands started by
// the bash tool, and a subagent-like task whose owner is the test itself.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "base/task_files.h"
#include "base/unique_fd.h"
#include "testing/background_tasks.h"

namespace {

using ikigai::testing::Eventually;
using ikigai::testing::Json;
using ikigai::testing::LiveProcessesOf;
using ikigai::testing::TaskSession;
using ikigai::testing::ToolRun;

TEST(KillShell, KillsTheWholeGroupAndNothingIsLeft) {
  TaskSession session;
  const std::string id = session.Start("echo up; sleep 300 & sleep 300 & wait");
  const pid_t supervisor = session.SupervisorSession();
  ASSERT_TRUE(Eventually([&] { return ikigai::testing::CountNamed(supervisor, "sleep") == 2; }));
  const Json answer = session.Kill(id);
  EXPECT_EQ(
      answer,
      (Json{
          {"task_id", id}, {"status", "killed"}, {"success", true}, {"exit_code", 128 + SIGTERM}}));
  EXPECT_EQ(session.Status(id), "killed");
  EXPECT_TRUE(Eventually([&] { return LiveProcessesOf(supervisor, true).empty(); }));
  const Json output = session.Output(id);
  EXPECT_EQ(output.value("status", ""), "killed") << output;
  EXPECT_EQ(output.value("output", ""), "up\n");
}

TEST(KillShell, ACommandIgnoringSigtermGetsSigkill) {
  TaskSession session;
  const std::string id = session.Start("trap '' TERM; sleep 300");
  const pid_t supervisor = session.SupervisorSession();
  ASSERT_TRUE(Eventually([&] { return ikigai::testing::CountNamed(supervisor, "sleep") == 1; }));
  const Json answer = session.Kill(id);
  EXPECT_EQ(answer.value("status", ""), "killed") << answer;
  EXPECT_EQ(answer.value("exit_code", 0), 128 + SIGKILL);
  EXPECT_TRUE(Eventually([&] { return LiveProcessesOf(supervisor, true).empty(); }));
}

TEST(KillShell, AnEndedTaskIsAlreadyCompleted) {
  TaskSession session;
  const std::string id = session.Start("exit 5");
  ASSERT_TRUE(Eventually([&] { return session.Status(id) == "completed"; }));
  EXPECT_EQ(session.Kill(id), (Json{{"task_id", id},
                                    {"status", "already_completed"},
                                    {"success", true},
                                    {"ended_as", "completed"},
                                    {"exit_code", 5}}));
  // Killed twice: the second finds it ended.
  const std::string other = session.Start("sleep 300");
  EXPECT_EQ(session.Kill(other).value("status", ""), "killed");
  EXPECT_EQ(session.Kill(other).value("status", ""), "already_completed");
}

TEST(KillShell, UnknownAndMalformedIdsAreNotFound) {
  TaskSession session;
  for (const std::string id : {"bg_00000000", "nonexistent", "../../x", ""}) {
    const Json answer = session.Kill(id);
    EXPECT_EQ(answer.value("error_code", ""), "NOT_FOUND") << answer;
    EXPECT_TRUE(answer.value("error", "").starts_with("Task not found: " + id)) << answer;
  }
}

TEST(KillShell, BadInputIsAClearError) {
  TaskSession session;
  for (const Json& args : {Json::object(), Json{{"task_id", true}}, Json{{"task_id", {1}}}}) {
    const ToolRun run = session.Tool("kill_shell", args);
    EXPECT_EQ(run.json.value("error_code", ""), "INVALID_ARG") << run.out;
    EXPECT_NE(run.json.value("error", "").find("task_id"), std::string::npos) << run.out;
  }
}

// Any owner that reads the control FIFO will do: here a thread of the test
// plays the host owning a subagent.
TEST(KillShell, ASubagentTaskIsKilledThroughItsOwnersFifo) {
  TaskSession session;
  const std::string id = "task_0123abcd";
  auto dir = ikigai::tasks::CreateTaskDirectory(session.dir() + "/tasks", id);
  ASSERT_TRUE(dir) << dir.error();
  ikigai::tasks::TaskStatus status{id, "subagent", "Review the code", "running", {}, 1, 0};
  ASSERT_TRUE(ikigai::tasks::WriteStatus(*dir, status));
  ikigai::testing::WriteFile(*dir + "/output", "thinking\n");
  ikigai::UniqueFd control(::open((*dir + "/control").c_str(), O_RDWR | O_CLOEXEC));
  ASSERT_TRUE(control.valid());
  std::thread owner([&] {
    std::string got;
    char c;
    while (got.find('\n') == std::string::npos && ::read(control.get(), &c, 1) == 1) got += c;
    status.status = got == "kill\n" ? "killed" : "completed";
    status.ended_ms = 2;
    (void)ikigai::tasks::WriteStatus(*dir, status);
  });
  const Json output = session.Output(id);
  EXPECT_EQ(output.value("kind", ""), "subagent") << output;
  EXPECT_EQ(output.value("status", ""), "running");
  EXPECT_EQ(output.value("output", ""), "thinking\n");
  EXPECT_EQ(session.Kill(id).value("status", ""), "killed");
  owner.join();
  EXPECT_EQ(session.Output(id).value("status", ""), "killed");
}

}  // namespace
