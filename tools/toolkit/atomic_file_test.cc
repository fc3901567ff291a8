#include "toolkit/atomic_file.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "testing/tool_runner.h"

namespace ikigai::toolkit {
namespace {

TEST(AtomicFile, BaseAndDirNames) {
  EXPECT_EQ(BaseName("/tmp/test.txt"), "test.txt");
  EXPECT_EQ(BaseName("test.txt"), "test.txt");
  EXPECT_EQ(BaseName("dir/sub/"), "sub");
  EXPECT_EQ(DirName("/tmp/test.txt"), "/tmp");
  EXPECT_EQ(DirName("/test.txt"), "/");
  EXPECT_EQ(DirName("test.txt"), ".");
  EXPECT_EQ(DirName("a/b"), "a");
}

TEST(AtomicFile, ResolvesChainsOfRelativeAndAbsoluteLinks) {
  testing::TempDir dir;
  testing::WriteFile(dir / "target", "x");
  ASSERT_EQ(::symlink("target", (dir / "one").c_str()), 0);
  ASSERT_EQ(::symlink((dir / "one").c_str(), (dir / "two").c_str()), 0);
  auto resolved = ResolveFinalSymlinks(dir / "two");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(*resolved, dir / "target");
}

TEST(AtomicFile, LinkLoopIsAnError) {
  testing::TempDir dir;
  ASSERT_EQ(::symlink("b", (dir / "a").c_str()), 0);
  ASSERT_EQ(::symlink("a", (dir / "b").c_str()), 0);
  auto resolved = ResolveFinalSymlinks(dir / "a");
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error(), ELOOP);
  auto written = WriteFileAtomically(dir / "a", "x");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code, "OPEN_FAILED");
}

}  // namespace
}  // namespace ikigai::toolkit
