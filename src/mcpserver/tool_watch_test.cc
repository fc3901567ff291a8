#include "mcpserver/tool_watch.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "testing/tool_runner.h"

namespace ikigai::mcpserver {
namespace {

class Changes {
 public:
  std::function<void()> callback() {
    return [this] {
      std::lock_guard lock(mutex_);
      ++count_;
      changed_.notify_all();
    };
  }
  void WaitFor(int n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return count_ >= n; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
};

TEST(ToolWatch, AToolAddedOrRemovedIsAChange) {
  ikigai::testing::TempDir dir;
  Changes changes;
  ToolWatch watch({dir.path(), "", dir.path() + "/missing"}, changes.callback());
  EXPECT_EQ(watch.watched(), 1);
  const std::string tool = dir.path() + "/x-tool";
  std::ofstream(tool) << "#!/bin/sh\n";
  changes.WaitFor(1);
  std::filesystem::remove(tool);
  changes.WaitFor(2);
}

// A new user has no ~/.ikigai/tools: made later, it is watched from then on,
// and the tools it arrives with are a change.
TEST(ToolWatch, ADirectoryMadeLaterIsWatchedFromThen) {
  ikigai::testing::TempDir home;
  Changes changes;
  const std::string tools = home.path() + "/.ikigai/tools";
  ToolWatch watch({tools}, changes.callback());
  EXPECT_EQ(watch.watched(), 0);
  std::filesystem::create_directories(tools);
  std::ofstream(tools + "/x-tool") << "#!/bin/sh\n";
  changes.WaitFor(1);
  EXPECT_EQ(watch.watched(), 1);
  std::filesystem::remove(tools + "/x-tool");
  changes.WaitFor(2);
}

}  // namespace
}  // namespace ikigai::mcpserver
