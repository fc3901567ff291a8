#include "file_edit/edit.h"

#include <gtest/gtest.h>

#include <string>

#include "toolkit/error_codes.h"

namespace ikigai::file_edit {
namespace {

namespace code = toolkit::code;

Result<EditOutcome, toolkit::ToolError> Edit(std::string_view content, std::string_view old_string,
                                             std::string_view new_string, bool all = false) {
  return ApplyEdit({content, old_string, new_string, all});
}

TEST(FileEditApply, ExactSingleMatchIsReplaced) {
  auto r = Edit("a = 1\ndebug = false\n", "debug = false", "debug = true");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->content, "a = 1\ndebug = true\n");
  EXPECT_EQ(r->replacements, 1u);
  EXPECT_FALSE(r->whitespace_normalized);
}

TEST(FileEditApply, CheckStringsComesFirst) {
  auto empty = Edit("x", "", "y");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, code::kInvalidArg);
  EXPECT_EQ(empty.error().message.rfind("old_string cannot be empty", 0), 0u);
  auto same = Edit("x", "x", "x");
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().message.rfind("old_string and new_string are identical", 0), 0u);
  EXPECT_FALSE(CheckStrings("a", "b").has_value());
}

TEST(FileEditApply, MatchesDoNotOverlap) {
  auto r = Edit("aaaa", "aa", "b", true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->content, "bb");
  EXPECT_EQ(r->replacements, 2u);
  auto ambiguous = Edit("aaa", "aa", "b");  // one non-overlapping match only
  ASSERT_TRUE(ambiguous.ok());
  EXPECT_EQ(ambiguous->content, "ba");
}

TEST(FileEditApply, NotUniqueListsEachLineOnceAndCountsEveryMatch) {
  auto r = Edit("x x\ny\nx\n", "x", "z");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::kNotUnique);
  EXPECT_EQ(r.error().message.rfind("String found 3 times, use replace_all to replace all", 0), 0u);
  EXPECT_EQ(r.error().extra["lines"], toolkit::Json::parse("[1,3]"));
  EXPECT_EQ(r.error().extra["matches"], 3);
}

TEST(FileEditApply, NotUniqueMessageAndLinesAreBounded) {
  std::string content;
  for (int i = 0; i < 5000; ++i) content += "same\n";
  auto r = Edit(content, "same", "other");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().extra["lines"].size(), kMaxListedLines);
  EXPECT_NE(r.error().message.find("and 4980 more"), std::string::npos);
  EXPECT_LT(r.error().message.size(), 400u);
}

TEST(FileEditApply, ReplaceAllWithNoMatchIsSuccessAndChangesNothing) {
  auto r = Edit("abc", "zzz", "y", true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->replacements, 0u);
  EXPECT_EQ(r->content, "abc");
}

TEST(FileEditApply, ReplaceAllDoesNotFallBackToWhitespaceMatching) {
  auto r = Edit("\tfoo();\n", "    foo();", "    bar();", true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->replacements, 0u);
}

TEST(FileEditApply, CrlfFileGetsCrlfInExactAndNormalizedPaths) {
  auto exact = Edit("a\r\nb\r\n", "b", "b1\nb2");
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->content, "a\r\nb1\r\nb2\r\n");
  auto loose = Edit("a\r\nb\r\nc\r\n", "a\nb\n", "x\ny\n");
  ASSERT_TRUE(loose.ok());
  EXPECT_TRUE(loose->whitespace_normalized);
  EXPECT_EQ(loose->content, "x\r\ny\r\nc\r\n");
}

TEST(FileEditApply, LfFileStaysLf) {
  auto r = Edit("a\nb\nc\n", "a\r\nb\r\n", "x\r\ny\r\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->whitespace_normalized);
  EXPECT_EQ(r->content, "x\ny\nc\n");
}

TEST(FileEditApply, NormalizedMatchReplacesWholeLinesAndReindents) {
  const std::string file = "void f() {\n\tif (a) {\n\t\tb();\n\t}\n}\n";
  auto r = Edit(file, "    if (a) {\n        b();\n    }\n",
                "    if (a) {\n        b();\n        c();\n    }\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->whitespace_normalized);
  EXPECT_EQ(r->content, "void f() {\n\tif (a) {\n\t\tb();\n\t\tc();\n\t}\n}\n");
}

TEST(FileEditApply, NormalizedMatchWithoutFinalNewlineKeepsTheLineBreak) {
  auto r = Edit("x  \ny\n", "x", "z\n");  // "x" is found exactly here
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->whitespace_normalized);
  auto loose = Edit("a\nx  \ny\n", "a \nx", "b");
  ASSERT_TRUE(loose.ok());
  EXPECT_TRUE(loose->whitespace_normalized);
  EXPECT_EQ(loose->content, "b\ny\n");
}

TEST(FileEditApply, OldStringNewlineAtEndOfFileWithoutOne) {
  auto r = Edit("a\n  b", "a\nb\n", "c\nd\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->content, "c\nd") << "the file had no final newline and keeps none";
}

TEST(FileEditApply, NormalizedAmbiguityIsNotUniqueWithoutSuggestingReplaceAll) {
  auto r = Edit("\tx();\n\ty();\n\tx();\n", "    x();", "z();");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::kNotUnique);
  EXPECT_EQ(r.error().message.rfind("String found 2 times", 0), 0u);
  EXPECT_EQ(r.error().message.find("replace_all"), std::string::npos);
  EXPECT_EQ(r.error().extra["lines"], toolkit::Json::parse("[1,3]"));
}

TEST(FileEditApply, NotFoundNamesTheNearestLines) {
  auto r = Edit("name = x\ndebug = true\nport = 1\n", "debug = false", "debug = on");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::kNotFound);
  EXPECT_EQ(r.error().message.rfind("String not found in file", 0), 0u);
  EXPECT_NE(r.error().message.find("line 2: \"debug = true\""), std::string::npos);
  EXPECT_NE(r.error().message.find("file_read"), std::string::npos);
  ASSERT_GE(r.error().extra["candidates"].size(), 1u);
  EXPECT_EQ(r.error().extra["candidates"][0]["line"], 2);
  EXPECT_EQ(r.error().extra["candidates"][0]["text"], "debug = true");
}

TEST(FileEditApply, NotFoundWithNothingSimilarSaysSo) {
  auto r = Edit("alpha\nbeta\n", "zzzz qqqq", "y");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::kNotFound);
  EXPECT_EQ(r.error().message.rfind("String not found in file. No line resembles", 0), 0u);
  EXPECT_TRUE(r.error().extra["candidates"].empty());
}

TEST(FileEditApply, BlankOldStringIsOnlyMatchedExactly) {
  auto r = Edit("a\n\n\nb\n", "  \n", "x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code::kNotFound);
}

TEST(FileEditApply, RawBytesAreEdited) {
  const std::string content("a\0b\xFF\x01", 5);
  auto r = Edit(content, std::string("\0b", 2), "B");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->content, std::string("aB\xFF\x01", 4));
}

}  // namespace
}  // namespace ikigai::file_edit
