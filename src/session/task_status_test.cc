#include "session/task_status.h"

#include <gtest/gtest.h>

namespace ikigai::session {
namespace {

TEST(TaskStatusTest, TasksAreListedWithStatusAgeAndWhatTheyRun) {
  EXPECT_NE(TasksListing({}, 0).find("No background tasks"), std::string::npos);
  const std::vector<tasks::TaskStatus> list = {
      {"bg_0000000a", "bash", "npm run dev", "running", std::nullopt, 1'000, 0},
      {"task_0000000b", "subagent", "find the \x1b[31mbug", "completed", 0, 61'000, 70'000}};
  EXPECT_EQ(TasksListing(list, 121'000),
            "bg_0000000a  bash  running  2 min ago  npm run dev\n"
            "task_0000000b  subagent  completed (exit 0)  60 s ago  find the \\x1b[31mbug\n");
}

TEST(TaskStatusTest, SubagentsAreSummedUpOnceThereAreAny) {
  EXPECT_EQ(SubagentStatus({}), "");
  subagents::SubagentSummary summary{2, 1, 3, {}};
  summary.usage.input_tokens = 12'000;
  summary.usage.cache_read_tokens = 400;
  summary.usage.output_tokens = 800;
  EXPECT_EQ(SubagentStatus(summary),
            "Subagents: 2 running, 1 waiting, 3 finished; 12,400 tokens in, 800 out\n");
}

}  // namespace
}  // namespace ikigai::session
