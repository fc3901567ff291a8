#include "toolkit/atomic_file.h"

#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

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

struct stat Stat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st;
}

// Editing through one name of a file with two must change both: a rename
// would leave the other name on the old text.
TEST(AtomicFile, AHardLinkedFileStaysOneFile) {
  testing::TempDir dir;
  testing::WriteFile(dir / "a", "old\n");
  ASSERT_EQ(::link((dir / "a").c_str(), (dir / "b").c_str()), 0);
  const ino_t inode = Stat(dir / "a").st_ino;
  ASSERT_TRUE(WriteFileAtomically(dir / "a", "new, and longer than before\n").ok());
  EXPECT_EQ(testing::ReadFile(dir / "b"), "new, and longer than before\n");
  EXPECT_EQ(Stat(dir / "a").st_ino, inode);
  ASSERT_TRUE(WriteFileAtomically(dir / "b", "x\n").ok());  // shorter: cut to length
  EXPECT_EQ(testing::ReadFile(dir / "a"), "x\n");
  std::vector<std::string> names = testing::ListDir(dir.path());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
}

TEST(AtomicFile, ExtendedAttributesSurviveTheReplacement) {
  testing::TempDir dir;
  testing::WriteFile(dir / "f", "old\n");
  if (::setxattr((dir / "f").c_str(), "user.origin", "kept", 4, 0) != 0) {
    GTEST_SKIP() << "this filesystem has no user extended attributes: " << std::strerror(errno);
  }
  const ino_t inode = Stat(dir / "f").st_ino;
  ASSERT_TRUE(WriteFileAtomically(dir / "f", "new\n").ok());
  EXPECT_NE(Stat(dir / "f").st_ino, inode) << "the normal path renames";
  char value[16] = {};
  ASSERT_EQ(::getxattr((dir / "f").c_str(), "user.origin", value, sizeof value), 4);
  EXPECT_EQ(std::string(value, 4), "kept");
}

TEST(AtomicFile, AnotherUsersFileKeepsItsOwnerAndInode) {
  ASSERT_EQ(::geteuid(), 0u);
  testing::TempDir dir;
  testing::WriteFile(dir / "f", "old\n");
  ASSERT_EQ(::chown((dir / "f").c_str(), testing::kNobody, testing::kNobody), 0);
  const ino_t inode = Stat(dir / "f").st_ino;
  ASSERT_TRUE(WriteFileAtomically(dir / "f", "new\n").ok());
  EXPECT_EQ(Stat(dir / "f").st_uid, testing::kNobody);
  EXPECT_EQ(Stat(dir / "f").st_ino, inode);
  EXPECT_EQ(testing::ReadFile(dir / "f"), "new\n");
}

// A change made between the caller's read and the replacement is kept,
// and the write refused: never the last writer silently winning.
TEST(AtomicFile, AFileChangedMeanwhileIsRefusedAndKept) {
  testing::TempDir dir;
  for (bool linked : {false, true}) {  // the rename path and the in-place one
    const std::string path = dir / (linked ? "linked" : "plain");
    testing::WriteFile(path, "read version\n");
    if (linked) {
      ASSERT_EQ(::link(path.c_str(), (path + "-2").c_str()), 0);
    }
    WriteOptions options;
    options.seen = FileStamp::Of(Stat(path));
    options.before_replace = [&] { std::ofstream(path, std::ios::app) << "someone else's line\n"; };
    auto written = WriteFileAtomically(path, "my edit\n", options);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code, "FILE_CHANGED");
    EXPECT_NE(written.error().message.find("read the file again"), std::string::npos);
    EXPECT_EQ(testing::ReadFile(path), "read version\nsomeone else's line\n");
  }
  // Changed before the write even began.
  testing::WriteFile(dir / "early", "one\n");
  WriteOptions early;
  early.seen = FileStamp::Of(Stat(dir / "early"));
  testing::WriteFile(dir / "early", "two, longer\n");
  auto refused = WriteFileAtomically(dir / "early", "mine\n", early);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "FILE_CHANGED");
  // A file created meanwhile by someone else, where there was none.
  WriteOptions created;
  created.before_replace = [&] { testing::WriteFile(dir / "new", "theirs\n"); };
  auto lost = WriteFileAtomically(dir / "new", "mine\n", created);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(testing::ReadFile(dir / "new"), "theirs\n");
  // No temporary file left by any of it.
  for (const std::string& name : testing::ListDir(dir.path())) {
    EXPECT_EQ(name.find(".ikigai-"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace ikigai::toolkit
