#include "repl/history.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "testing/tool_runner.h"

namespace ikigai::repl {
namespace {

using ikigai::testing::ReadFile;
using ikigai::testing::TempDir;
using ikigai::testing::WriteFile;

TEST(History, EntriesRoundTripThroughOneLine) {
  for (const std::string entry : {"plain", "two\nlines", "back\\slash", "\\n literally",
                                  "ends with \\", "crlf\r\nline", ""}) {
    const std::string line = EncodeHistoryEntry(entry);
    EXPECT_EQ(line.find('\n'), std::string::npos) << entry;
    EXPECT_EQ(DecodeHistoryEntry(line), entry) << line;
  }
  EXPECT_EQ(EncodeHistoryEntry("a\nb\\c"), "a\\nb\\\\c");
}

TEST(History, AppendsToAPrivateFileAndCreatesItsDirectory) {
  TempDir dir;
  HistoryFile file(dir / ".ikigai/history");
  EXPECT_TRUE(file.Load().empty());
  ASSERT_TRUE(file.Append("first"));
  ASSERT_TRUE(file.Append("second\nline"));
  EXPECT_EQ(ReadFile(dir / ".ikigai/history"), "first\nsecond\\nline\n");
  EXPECT_EQ(file.Load(), (std::vector<std::string>{"first", "second\nline"}));
  struct stat st {};
  ASSERT_EQ(::stat((dir / ".ikigai/history").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir / ".ikigai").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(History, TwoSessionsAppendingKeepBoth) {
  TempDir dir;
  HistoryFile one(dir / "history"), two(dir / "history");
  one.Append("from one");
  two.Append("from two");
  one.Append("one again");
  EXPECT_EQ(HistoryFile(dir / "history").Load(),
            (std::vector<std::string>{"from one", "from two", "one again"}));
}

TEST(History, LoadKeepsTheLastEntriesAndCompactsALongFile) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 25; ++i) text += "entry " + std::to_string(i) + "\n";
  WriteFile(dir / "history", text);
  HistoryFile file(dir / "history", 10);
  const auto entries = file.Load();
  ASSERT_EQ(entries.size(), 10u);
  EXPECT_EQ(entries.front(), "entry 15");
  EXPECT_EQ(entries.back(), "entry 24");
  // More than twice the limit: the file itself was cut to the limit.
  std::string kept;
  for (int i = 15; i < 25; ++i) kept += "entry " + std::to_string(i) + "\n";
  EXPECT_EQ(ReadFile(dir / "history"), kept);
}

TEST(History, AnUnwritableFileIsReportedNotFatal) {
  HistoryFile file("/proc/ikigai-no-such-dir/history");
  EXPECT_FALSE(file.Append("x"));
  EXPECT_TRUE(file.Load().empty());
}

}  // namespace
}  // namespace ikigai::repl
