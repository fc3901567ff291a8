#include "toolkit/budget.h"

#include <gtest/gtest.h>

#include "base/utf8.h"
#include "toolkit/json.h"

namespace ikigai::toolkit {
namespace {

TEST(Budget, EscapedSizeMatchesJsonEscaping) {
  EXPECT_EQ(JsonEscapedSize("abc"), 3u);
  EXPECT_EQ(JsonEscapedSize("\"\\\n\t"), 8u);
  EXPECT_EQ(JsonEscapedSize(std::string(1, '\0')), 6u);
  EXPECT_EQ(JsonEscapedSize("\xC3\xA9"), 2u);  // UTF-8 is printed as is
  const std::string sample = std::string("q\"\x01\x1F\x7F\r") + "\xE2\x9C\x93";
  // The dumped string minus its two quotes.
  EXPECT_EQ(JsonEscapedSize(sample), Json(sample).dump().size() - 2);
}

TEST(Budget, HeadCutsAfterTheLastWholeLineThatFits) {
  EXPECT_EQ(KeepHead("aaa\nbbb\nccc\n", 11), "aaa\nbbb\n");  // \n counts 2
  EXPECT_EQ(KeepHead("aaa\nbbb\n", 100), "aaa\nbbb\n");
}

TEST(Budget, HeadCutsInsideASingleLongLineAtACharacterBoundary) {
  const std::string line = "\xC3\xA9\xC3\xA9\xC3\xA9";  // three 'é', 6 bytes
  EXPECT_EQ(KeepHead(line, 5), "\xC3\xA9\xC3\xA9");
  EXPECT_TRUE(utf8::IsValid(KeepHead(line, 3)));
}

TEST(Budget, TailStartsAtTheFirstWholeLineThatFits) {
  const std::string s = "aaa\nbbb\nccc";
  EXPECT_EQ(s.substr(TailFitting(s, 9)), "bbb\nccc");
  EXPECT_EQ(s.substr(TailFitting(s, 3)), "ccc");
  EXPECT_EQ(TailFitting(s, 1000), 0u);
}

TEST(Budget, HeadAndTailKeepBothEndsAndCountWhatWasLeftOut) {
  std::string s;
  for (int i = 1; i <= 1000; ++i) s += "line " + std::to_string(i) + "\n";
  const HeadAndTail cut = KeepHeadAndTail(s, 300);
  EXPECT_TRUE(cut.head.starts_with("line 1\n"));
  EXPECT_TRUE(cut.tail.ends_with("line 1000\n"));
  EXPECT_LE(JsonEscapedSize(cut.head) + JsonEscapedSize(cut.tail), 300u);
  EXPECT_EQ(cut.head.size() + cut.omitted_bytes + cut.tail.size(), s.size());
  EXPECT_GT(cut.omitted_lines, 900u);
}

TEST(Budget, HeadAndTailLeavesFittingTextWhole) {
  const HeadAndTail cut = KeepHeadAndTail("short\n", 100);
  EXPECT_EQ(cut.head, "short\n");
  EXPECT_TRUE(cut.tail.empty());
  EXPECT_EQ(cut.omitted_bytes, 0u);
}

}  // namespace
}  // namespace ikigai::toolkit
