#include "base/task_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "testing/tool_runner.h"

namespace ikigai::tasks {
namespace {

TEST(TaskFiles, IdsAreAPrefixAndEightHexDigitsAndNeverAPath) {
  const std::string id = NewTaskId("bg");
  EXPECT_TRUE(id.starts_with("bg_")) << id;
  EXPECT_TRUE(ValidTaskId(id)) << id;
  EXPECT_NE(NewTaskId("bg"), NewTaskId("bg"));
  for (const char* bad : {"", "bg", "bg_", "bg_1234567", "bg_123456789", "BG_12345678",
                          "bg_1234567g", "../x_12345678", "_12345678", "bg_12345678/.."}) {
    EXPECT_FALSE(ValidTaskId(bad)) << bad;
  }
}

TEST(TaskFiles, StatusIsWrittenWholeAndReadBack) {
  testing::TempDir dir;
  auto task = CreateTaskDirectory(dir / "tasks", "bg_0000abcd");
  ASSERT_TRUE(task) << task.error();
  TaskStatus status{"bg_0000abcd", "bash", "sleep 1", std::string(kRunning), {}, 5, 0};
  ASSERT_TRUE(WriteStatus(*task, status));
  auto read = ReadStatus(*task);
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read->description, "sleep 1");
  EXPECT_FALSE(read->Ended());
  status.status = kCompleted;
  status.exit_code = 3;
  ASSERT_TRUE(WriteStatus(*task, status));
  EXPECT_EQ(ReadStatus(*task)->exit_code, 3);
  EXPECT_EQ(ListTasks(dir / "tasks").size(), 1u);
  EXPECT_FALSE(ReadStatus(dir / "tasks/bg_ffffffff"));
  testing::WriteFile(*task + "/status.json", "{\"task_id\": 7}");
  EXPECT_FALSE(ReadStatus(*task));
}

TEST(TaskFiles, AKillReachesTheOwnerThroughTheFifo) {
  testing::TempDir dir;
  auto task = CreateTaskDirectory(dir / "tasks", "bg_00000001");
  ASSERT_TRUE(task) << task.error();
  EXPECT_FALSE(SendKill(*task)) << "nobody reads the FIFO";
  const int reader = ::open((*task + "/control").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_TRUE(SendKill(*task));
  char line[16] = {};
  EXPECT_EQ(::read(reader, line, sizeof line - 1), 5);
  EXPECT_STREQ(line, "kill\n");
  ::close(reader);
}

}  // namespace
}  // namespace ikigai::tasks
