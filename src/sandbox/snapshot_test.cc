#include "sandbox/snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/tool_runner.h"

namespace ikigai::sandbox {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;

TEST(SnapshotTest, UnchangedPathsReportNothing) {
  TempDir dir;
  fs::create_directories(dir / "hooks/sub");
  WriteFile(dir / "hooks/sub/a", "a");
  WriteFile(dir / "config", "[core]\n");
  const std::vector<std::string> paths = {dir / "hooks", dir / "config", dir / "missing"};
  EXPECT_TRUE(ChangedPaths(TakeSnapshot(paths), TakeSnapshot(paths)).empty());
}

TEST(SnapshotTest, CreatedChangedRemovedAndReplacedAreReported) {
  TempDir dir;
  fs::create_directories(dir / "hooks/sub");
  WriteFile(dir / "hooks/sub/a", "a");
  WriteFile(dir / "config", "[core]\n");
  const std::vector<std::string> paths = {dir / "hooks", dir / "config", dir / ".ikigai"};
  const auto before = TakeSnapshot(paths);
  WriteFile(dir / "hooks/sub/a", "changed, and longer");  // nested change
  WriteFile(dir / "hooks/post-commit", "#!/bin/sh\n");    // created
  fs::create_directories(dir / ".ikigai/tools");          // a protected path that did not exist
  fs::remove(dir / "config");
  WriteFile(dir / "config", "[core]\n");  // same content, new inode
  const auto changed = ChangedPaths(before, TakeSnapshot(paths));
  for (const auto& p : std::vector<std::string>{dir / "hooks/sub/a", dir / "hooks/post-commit",
                                                dir / ".ikigai", dir / "config"}) {
    EXPECT_NE(std::find(changed.begin(), changed.end(), p), changed.end()) << p;
  }
}

TEST(SnapshotTest, ADirectoryReplacedByAnotherIsReported) {
  TempDir dir;
  fs::create_directories(dir / "git/hooks");
  const std::vector<std::string> paths = {dir / "git/hooks"};
  const auto before = TakeSnapshot(paths);
  fs::rename(dir / "git", dir / "git-old");
  fs::create_directories(dir / "git/hooks");
  EXPECT_EQ(ChangedPaths(before, TakeSnapshot(paths)), std::vector<std::string>{dir / "git/hooks"});
}

}  // namespace
}  // namespace ikigai::sandbox
