// ReadBoundedFile's cap, and files whose size says nothing (/proc).
#include "base/bounded_file.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/tool_runner.h"

namespace ikigai {
namespace {

TEST(BoundedFile, TheCapIsExactAndTheRestIsCut) {
  testing::TempDir dir;
  const std::string path = dir / "f";
  for (const std::size_t size : {0, 1, 4095, 4096, 4097, 9999, 10000, 10001, 30000}) {
    SCOPED_TRACE(size);
    testing::WriteFile(path, std::string(size, 'x'));
    auto file = ReadBoundedFile(path, {.max_bytes = 10000, .confine_to = ""});
    ASSERT_TRUE(file) << file.error();
    EXPECT_TRUE(file->exists);
    EXPECT_EQ(file->text, std::string(std::min<std::size_t>(size, 10000), 'x'));
    EXPECT_EQ(file->truncated, size > 10000);
    EXPECT_EQ(file->size, size);
  }
}

// The buffer starts at the file's size and grows: a file that says it is
// empty is read whole all the same.
TEST(BoundedFile, AFileLongerThanItsSizeIsReadWhole) {
  auto file = ReadBoundedFile("/proc/self/status", {.max_bytes = 1 << 20, .confine_to = ""});
  ASSERT_TRUE(file) << file.error();
  EXPECT_NE(file->text.find("\nPid:"), std::string::npos);
  EXPECT_FALSE(file->truncated);
  auto cut = ReadBoundedFile("/proc/self/status", {.max_bytes = 10, .confine_to = ""});
  ASSERT_TRUE(cut) << cut.error();
  EXPECT_EQ(cut->text, file->text.substr(0, 10));
  EXPECT_TRUE(cut->truncated);
}

}  // namespace
}  // namespace ikigai
