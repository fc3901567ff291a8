#include "base/utf8.h"

#include <gtest/gtest.h>

namespace ikigai::utf8 {
namespace {

const std::string kFFFD(kReplacement);

TEST(Utf8, ValidTextIsUnchanged) {
  const std::string text = "plain ascii, \xC3\xA9, \xE2\x9C\x93, \xF0\x9F\x98\x80, \t\n";
  EXPECT_TRUE(IsValid(text));
  EXPECT_EQ(Repair(text), text);
}

TEST(Utf8, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(Repair("a\xFF"
                   "b"),
            "a" + kFFFD + "b");
  EXPECT_EQ(Repair("\x80"), kFFFD);                          // lone continuation byte
  EXPECT_EQ(Repair("\xC0\xAF"), kFFFD + kFFFD);              // overlong '/'
  EXPECT_EQ(Repair("\xED\xA0\x80"), kFFFD + kFFFD + kFFFD);  // surrogate half: no valid prefix
  EXPECT_EQ(Repair("\xF4\x90\x80\x80").find(kFFFD), 0u);     // above U+10FFFF
  EXPECT_FALSE(IsValid("\xFE"));
}

TEST(Utf8, TruncatedSequenceIsOneReplacement) {
  EXPECT_EQ(Repair("x\xE2\x82"), "x" + kFFFD);
  EXPECT_EQ(Repair("\xE2\x82"
                   "A"),
            kFFFD + "A");
}

TEST(Utf8, RepairedTextIsAlwaysValid) {
  std::string all;
  for (int i = 0; i < 256; ++i) {
    for (int j = 0; j < 256; j += 7) {
      all += static_cast<char>(i);
      all += static_cast<char>(j);
    }
  }
  EXPECT_TRUE(IsValid(Repair(all)));
}

TEST(Utf8, SafeCutsNeverSplitACharacter) {
  const std::string text =
      "a\xC3\xA9"
      "b";                                   // a é b
  EXPECT_EQ(SafePrefixLength(text, 2), 1u);  // would split é
  EXPECT_EQ(SafePrefixLength(text, 3), 3u);
  EXPECT_EQ(SafePrefixLength(text, 99), text.size());
  EXPECT_EQ(SafeSuffixStart(text, 2), 3u);
  EXPECT_EQ(SafeSuffixStart(text, 1), 1u);
}

}  // namespace
}  // namespace ikigai::utf8
