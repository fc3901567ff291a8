#include "base/format.h"

#include <gtest/gtest.h>

namespace ikigai {
namespace {

using std::chrono::milliseconds;

TEST(FormatDuration, MillisecondsSecondsMinutes) {
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0 ms");
  EXPECT_EQ(FormatDuration(milliseconds(300)), "300 ms");
  EXPECT_EQ(FormatDuration(milliseconds(1000)), "1 s");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1.5 s");
  EXPECT_EQ(FormatDuration(milliseconds(30000)), "30 s");
  EXPECT_EQ(FormatDuration(milliseconds(90000)), "90 s");
  EXPECT_EQ(FormatDuration(milliseconds(600000)), "10 min");
  EXPECT_EQ(FormatDuration(milliseconds(150000)), "2 min 30 s");
}

TEST(FormatCount, ThousandsSeparated) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000), "1,000");
  EXPECT_EQ(FormatCount(152300), "152,300");
  EXPECT_EQ(FormatCount(1047576), "1,047,576");
  EXPECT_EQ(FormatCount(-1234), "-1,234");
}

TEST(FormatSize, WholeUnitsOrBytes) {
  EXPECT_EQ(FormatSize(1000), "1000 bytes");
  EXPECT_EQ(FormatSize(8 * 1024), "8 KB");
  EXPECT_EQ(FormatSize(64 * 1024), "64 KB");
  EXPECT_EQ(FormatSize(1024 * 1024), "1 MB");
  EXPECT_EQ(FormatSize(1536 * 1024), "1536 KB");
}

TEST(Trim, SpacesTabsAndLineEnds) {
  EXPECT_EQ(Trim("  a b\t\r\n"), "a b");
  EXPECT_EQ(Trim(" \n\t"), "");
  EXPECT_TRUE(IsBlank(" \r\n"));
  EXPECT_TRUE(IsBlank(""));
  EXPECT_FALSE(IsBlank(" x "));
}

TEST(AsciiLower, LowersAsciiLettersOnly) {
  EXPECT_EQ(AsciiLower("Content-Type: Application/JSON"), "content-type: application/json");
  EXPECT_EQ(AsciiLower("\xC3\x89t\xC3\xA9 [::1]"), "\xC3\x89t\xC3\xA9 [::1]");
  EXPECT_EQ(AsciiLower(""), "");
}

}  // namespace
}  // namespace ikigai
