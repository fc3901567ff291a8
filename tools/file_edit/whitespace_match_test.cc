#include "file_edit/whitespace_match.h"

#include <gtest/gtest.h>

#include <string>

#include "file_edit/line_endings.h"
#include "file_edit/lines.h"

namespace ikigai::file_edit {
namespace {

std::vector<std::size_t> Find(std::string_view text, std::string_view old_string) {
  return FindWhitespaceNormalized(text, SplitLines(text), old_string);
}

TEST(WhitespaceMatchLines, SplitKeepsEveryByteAndTreatsCrlfAsOneTerminator) {
  const std::string text = "a\r\nbb\n\nc";
  const auto lines = SplitLines(text);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(Content(text, lines[0]), "a");
  EXPECT_EQ(lines[0].end, 3u);
  EXPECT_EQ(Content(text, lines[1]), "bb");
  EXPECT_EQ(Content(text, lines[2]), "");
  EXPECT_EQ(Content(text, lines[3]), "c");
  EXPECT_EQ(lines[3].end, text.size());
  EXPECT_EQ(SplitLines("a\nb\n").size(), 2u);
  EXPECT_TRUE(SplitLines("").empty());
}

TEST(WhitespaceMatchLines, TrimAndIndentAndLineNumbers) {
  EXPECT_EQ(TrimWhitespace(" \t x y \r"), "x y");
  EXPECT_EQ(TrimWhitespace(" \t\r"), "");
  EXPECT_EQ(LeadingIndent("\t  x "), "\t  ");
  EXPECT_EQ(LineNumberAt("a\nb\nc", 4), 3u);
  EXPECT_EQ(LineNumberAt("a\nb\nc", 0), 1u);
  EXPECT_EQ(LineNumberAt("a\nb\nc", 4, 2, 2), 3u);
}

TEST(WhitespaceMatch, TabsInFileMatchSpacesInOldString) {
  const std::string file = "int f() {\n\tif (x) {\n\t\ty();\n\t}\n}\n";
  EXPECT_EQ(Find(file, "    if (x) {\n        y();\n    }"), std::vector<std::size_t>{1});
}

TEST(WhitespaceMatch, TrailingSpacesAndCarriageReturnsAreDisregarded) {
  EXPECT_EQ(Find("a  \r\nb\t\r\nc\r\n", "a\nb\n"), std::vector<std::size_t>{0});
  EXPECT_EQ(Find("x\na\nb\n", "a\r\nb\r\n"), std::vector<std::size_t>{1});
}

TEST(WhitespaceMatch, WholeLinesOnlyAndInnerWhitespaceCounts) {
  EXPECT_TRUE(Find("debug = false\n", "debug = fals").empty());
  EXPECT_TRUE(Find("a  b\n", "a b").empty());
}

TEST(WhitespaceMatch, BlankLinesMatchBlankLines) {
  const std::string file = "a\n\n  \nb\na\nb\n";
  EXPECT_EQ(Find(file, "a\n\n\nb"), std::vector<std::size_t>{0});
}

TEST(WhitespaceMatch, EveryWindowIsReportedIncludingOverlappingOnes) {
  EXPECT_EQ(Find("x\nx\nx\n", "  x\n  x"), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(Find("a\nb\na\nb\n", "\ta\n\tb\n"), (std::vector<std::size_t>{0, 2}));
  // The KMP fallback: a partial match restarts inside itself.
  EXPECT_EQ(Find("a\na\nb\n", "a\nb"), std::vector<std::size_t>{1});
}

TEST(WhitespaceMatch, BlankOldStringNeverMatches) {
  EXPECT_TRUE(IsBlank(" \n\t\r\n"));
  EXPECT_FALSE(IsBlank(" x "));
  EXPECT_TRUE(Find("\n\n  \n", "  \n").empty());
}

TEST(WhitespaceMatch, OldStringLongerThanFileFindsNothing) {
  EXPECT_TRUE(Find("a\n", "a\nb\nc").empty());
  EXPECT_TRUE(Find("", "a").empty());
}

TEST(WhitespaceMatch, RegionIncludesTheTerminatorOnlyWhenOldStringEndsWithANewline) {
  const std::string text = "a\n  b  \r\nc";
  const auto lines = SplitLines(text);
  const Region without = WindowRegion(lines, 1, 1, false);
  EXPECT_EQ(text.substr(without.begin, without.end - without.begin), "  b  ");
  EXPECT_FALSE(without.ends_with_terminator);
  const Region with = WindowRegion(lines, 1, 1, true);
  EXPECT_EQ(text.substr(with.begin, with.end - with.begin), "  b  \r\n");
  EXPECT_TRUE(with.ends_with_terminator);
  const Region last = WindowRegion(lines, 2, 1, true);  // the file ends without a newline
  EXPECT_EQ(text.substr(last.begin, last.end - last.begin), "c");
  EXPECT_FALSE(last.ends_with_terminator);
}

TEST(WhitespaceMatch, LinearOnARepetitiveFile) {
  std::string file;
  for (int i = 0; i < 100000; ++i) file += "    x\n";
  std::string old_string;
  for (int i = 0; i < 2000; ++i) old_string += "x\n";
  old_string += "y\n";
  EXPECT_TRUE(Find(file, old_string).empty());  // would take ~2e8 steps without KMP
}

TEST(FileEditLineEndings, DetectsTheMajority) {
  EXPECT_EQ(DetectLineEnding("no breaks"), LineEnding::kNone);
  EXPECT_EQ(DetectLineEnding("a\nb\n"), LineEnding::kLf);
  EXPECT_EQ(DetectLineEnding("a\r\nb\r\nc\n"), LineEnding::kCrlf);
  EXPECT_EQ(DetectLineEnding("a\r\nb\nc\n"), LineEnding::kMixedLf);
}

TEST(FileEditLineEndings, ConvertsInsertedText) {
  EXPECT_EQ(MatchLineEndings("a\nb\r\nc\n", LineEnding::kCrlf), "a\r\nb\r\nc\r\n");
  EXPECT_EQ(MatchLineEndings("\n", LineEnding::kCrlf), "\r\n");
  EXPECT_EQ(MatchLineEndings("a\r\nb\n\r", LineEnding::kLf), "a\nb\n\r");
  EXPECT_EQ(MatchLineEndings("a\r\nb\n", LineEnding::kMixedLf), "a\r\nb\n");
  EXPECT_EQ(MatchLineEndings("a\r\nb\n", LineEnding::kNone), "a\r\nb\n");
}

}  // namespace
}  // namespace ikigai::file_edit
