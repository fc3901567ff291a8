#include "file_edit/candidates.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "base/utf8.h"

namespace ikigai::file_edit {
namespace {

TEST(Candidates, BigramSimilarityIsDiceOfBigramMultisets) {
  EXPECT_DOUBLE_EQ(BigramSimilarity("abc", "abc"), 1.0);
  EXPECT_DOUBLE_EQ(BigramSimilarity("abc", "xyz"), 0.0);
  // "aaa": {aa, aa}; "aa": {aa}: 2 * 1 / 3.
  EXPECT_DOUBLE_EQ(BigramSimilarity("aaa", "aa"), 2.0 / 3.0);
  // night/nacht: {ni,ig,gh,ht} vs {na,ac,ch,ht}: 2 * 1 / 8.
  EXPECT_DOUBLE_EQ(BigramSimilarity("night", "nacht"), 0.25);
  EXPECT_DOUBLE_EQ(BigramSimilarity("a", "a"), 0.0);
}

TEST(Candidates, NearestLinesRankBestFirstWithLineNumbers) {
  const std::string text =
      "name = demo\n"
      "debug = true\n"
      "  debug_level = 3\n"
      "port = 8080\n";
  const auto nearest = NearestLines(text, SplitLines(text), "debug = false");
  ASSERT_FALSE(nearest.empty());
  EXPECT_EQ(nearest[0].line, 2u);
  EXPECT_EQ(nearest[0].text, "debug = true");
  for (std::size_t i = 1; i < nearest.size(); ++i) {
    EXPECT_GE(nearest[i - 1].score, nearest[i].score);
  }
  for (const auto& c : nearest) EXPECT_NE(c.line, 4u) << "port is not similar";
}

TEST(Candidates, AtMostMaxAndTiesKeepFileOrder) {
  const std::string text = "abcd\nxx\nabcd\nabcd\nabcd\n";
  const auto nearest = NearestLines(text, SplitLines(text), "  abcd  ", 3);
  ASSERT_EQ(nearest.size(), 3u);
  EXPECT_EQ(nearest[0].line, 1u);
  EXPECT_EQ(nearest[1].line, 3u);
  EXPECT_EQ(nearest[2].line, 4u);
  EXPECT_DOUBLE_EQ(nearest[0].score, 1.0);
}

TEST(Candidates, DissimilarLinesAreLeftOut) {
  const std::string text = "alpha\nbeta\ngamma\n";
  EXPECT_TRUE(NearestLines(text, SplitLines(text), "completely different").empty());
  EXPECT_TRUE(NearestLines(text, SplitLines(text), "x").empty())
      << "a 1-byte needle has no bigrams";
}

TEST(Candidates, TextIsTheRawLineRepairedAndCut) {
  std::string text = "\tvalue = \xFF\xFE old\n";
  text += std::string(500, 'q') + "\n";
  auto nearest = NearestLines(text, SplitLines(text), "value = old");
  ASSERT_FALSE(nearest.empty());
  EXPECT_EQ(nearest[0].line, 1u);
  EXPECT_TRUE(utf8::IsValid(nearest[0].text));
  EXPECT_EQ(nearest[0].text.substr(0, 9), "\tvalue = ");

  nearest = NearestLines(text, SplitLines(text), std::string(400, 'q'));
  ASSERT_EQ(nearest.size(), 1u);
  EXPECT_EQ(nearest[0].line, 2u);
  EXPECT_EQ(nearest[0].text, std::string(kCandidateTextBytes, 'q') + "...");
}

TEST(Candidates, RepresentativeLineIsTheFirstNonBlankOne) {
  EXPECT_EQ(RepresentativeLine("\n  \n  foo();\nbar();"), "  foo();");
  EXPECT_EQ(RepresentativeLine(" \n"), "");
}

TEST(Candidates, FastOnAHundredThousandLines) {
  std::string text;
  for (int i = 0; i < 100000; ++i) {
    text += "    int variable_" + std::to_string(i) + " = compute(" + std::to_string(i) + ");\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const auto nearest = NearestLines(text, SplitLines(text), "int variable_77777 = compute(7777);");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(nearest.empty());
  EXPECT_EQ(nearest[0].line, 77778u);
  EXPECT_LT(seconds, 2.0);  // about 20 ms in a release build
}

}  // namespace
}  // namespace ikigai::file_edit
