#include "agent/task_notes.h"

#include <gtest/gtest.h>

#include "testing/tool_runner.h"

namespace ikigai::agent {
namespace {

tasks::TaskStatus Task(std::string id, std::string status, std::optional<int> exit_code,
                       long long started) {
  return {std::move(id), "bash", "npm test", std::move(status), exit_code, started, 0};
}

TEST(EndedTasksTest, EachEndedTaskIsToldOnceAndRunningOnesNotYet) {
  testing::TempDir dir;
  const std::string tasks_dir = dir.path() + "/tasks";
  auto build = tasks::CreateTaskDirectory(tasks_dir, "bg_00000001");
  auto server = tasks::CreateTaskDirectory(tasks_dir, "bg_00000002");
  ASSERT_TRUE(build && server);
  ASSERT_TRUE(tasks::WriteStatus(*build, Task("bg_00000001", "running", std::nullopt, 1)));
  ASSERT_TRUE(tasks::WriteStatus(*server, Task("bg_00000002", "running", std::nullopt, 2)));

  EndedTasks ended(tasks_dir);
  EXPECT_TRUE(ended.Take().empty());
  ASSERT_TRUE(tasks::WriteStatus(*build, Task("bg_00000001", "completed", 0, 1)));
  EXPECT_EQ(ended.Take(), std::vector<std::string>{
                              "Background task bg_00000001 (npm test) completed with exit code 0; "
                              "read its output with task_output."});
  EXPECT_TRUE(ended.Take().empty()) << "told once";
  tasks::TaskStatus killed = Task("bg_00000002", "killed", 143, 2);
  killed.kind = "subagent";
  ASSERT_TRUE(tasks::WriteStatus(*server, killed));
  EXPECT_EQ(ended.Take(), std::vector<std::string>{
                              "Background subagent bg_00000002 (npm test) killed with exit code "
                              "143; read its output with task_output."});
  EXPECT_TRUE(EndedTasks("").Take().empty());
  // A new agent (after /clear) is not told again of what had ended before.
  EXPECT_TRUE(EndedTasks(tasks_dir).Take().empty());
}

}  // namespace
}  // namespace ikigai::agent
