#include "file_edit/reindent.h"

#include <gtest/gtest.h>

#include <string>

#include "file_edit/lines.h"

namespace ikigai::file_edit {
namespace {

using Kind = IndentStyle::Kind;

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (const Line& line : SplitLines(text)) out.push_back(Content(text, line));
  return out;
}

// Re-indents as the tool does: `matched` is the file's text old_string matched.
std::string ReindentAs(std::string_view old_string, std::string_view new_string,
                       std::string_view matched, std::string_view whole_file) {
  return Reindent({old_string, new_string, Lines(matched), DetectIndentStyle({whole_file})});
}

TEST(WhitespaceMatchReindent, DetectsTabs) {
  EXPECT_EQ(DetectIndentStyle({"a\n\tb\n\t\tc\n\t * d\n"}), (IndentStyle{Kind::kTabs, 0}));
}

TEST(WhitespaceMatchReindent, DetectsTheSpaceUnitFromSteps) {
  EXPECT_EQ(DetectIndentStyle({"a\n  b\n    c\n  d\n"}), (IndentStyle{Kind::kSpaces, 2}));
  EXPECT_EQ(DetectIndentStyle({"a\n    b\n        c\n    d\n"}), (IndentStyle{Kind::kSpaces, 4}));
  // Comment continuations (" * ") and an aligned line do not decide the unit.
  EXPECT_EQ(DetectIndentStyle({"/**\n * x\n */\nf() {\n    a(1,\n      2);\n    b();\n"
                               "    if (c) {\n        d();\n    }\n}\n"}),
            (IndentStyle{Kind::kSpaces, 4}));
}

TEST(WhitespaceMatchReindent, FallsBackToTheGcdThenToUnknown) {
  EXPECT_EQ(DetectIndentStyle({"        a\n        b\n"}), (IndentStyle{Kind::kSpaces, 8}));
  EXPECT_EQ(DetectIndentStyle({"    a\n"}), (IndentStyle{Kind::kSpaces, 4}));
  EXPECT_EQ(DetectIndentStyle({"a\nb\n"}), IndentStyle{});
  EXPECT_EQ(DetectIndentStyle({" * x\n"}), IndentStyle{});
}

TEST(WhitespaceMatchReindent, StepsAreMeasuredWithinOneTextOnly) {
  // Each text alone has no step; across them the 4 -> 6 step must not count.
  EXPECT_EQ(DetectIndentStyle({"    a", "      b"}), (IndentStyle{Kind::kSpaces, 2}));
  EXPECT_EQ(DetectIndentStyle({"    a", "        b"}), (IndentStyle{Kind::kSpaces, 4}));
}

TEST(WhitespaceMatchReindent, SpacesBecomeTabsWithTheRightNesting) {
  const std::string file = "int f() {\n\tif (x) {\n\t\ty();\n\t}\n}\n";
  const std::string matched = "\tif (x) {\n\t\ty();\n\t}";
  const std::string out = ReindentAs("    if (x) {\n        y();\n    }",
                                     "    if (x) {\n        y();\n        if (z) {\n"
                                     "            w();\n        }\n    }",
                                     matched, file);
  EXPECT_EQ(out, "\tif (x) {\n\t\ty();\n\t\tif (z) {\n\t\t\tw();\n\t\t}\n\t}");
}

TEST(WhitespaceMatchReindent, ModelUnitIsLearnedFromTheMatchedLines) {
  // The model renders a tab as 8 columns; steps of 8 in old_string against
  // steps of one tab in the file say so, whatever new_string's steps are.
  const std::string file = "f() {\n\ta();\n\tif (b) {\n\t\tc();\n\t}\n}\n";
  const std::string out =
      ReindentAs("        if (b) {\n                c();",
                 "        if (b) {\n                c();\n                while (d) {\n"
                 "                        e();\n                }\n        }",
                 "\tif (b) {\n\t\tc();", file);
  EXPECT_EQ(out, "\tif (b) {\n\t\tc();\n\t\twhile (d) {\n\t\t\te();\n\t\t}\n\t}");
}

TEST(WhitespaceMatchReindent, BaseShiftIsCorrectedInTheSameStyle) {
  // The model dropped the file's base indentation (4 spaces) but kept its steps.
  const std::string file = "class A {\n    void f() {\n        g();\n    }\n}\n";
  const std::string out = ReindentAs("void f() {\n    g();\n}", "void f() {\n    g();\n    h();\n}",
                                     "    void f() {\n        g();\n    }", file);
  EXPECT_EQ(out, "    void f() {\n        g();\n        h();\n    }");
}

TEST(WhitespaceMatchReindent, SameStyleAndBaseKeepNewStringByteForByte) {
  // The trailing-space case: only the ends of lines differed.
  const std::string file = "  a  \n    b\t\n";
  const std::string new_string = "  a\n      odd(\n     x);\n  \n    b\n";
  EXPECT_EQ(ReindentAs("  a\n    b\n", new_string, "  a  \n    b\t", file), new_string);
  // The CRLF case.
  const std::string crlf_new = "x\r\n  y\r\n";
  EXPECT_EQ(ReindentAs("a\r\n  b\r\n", crlf_new, "a\n  b", "a\n  b\n"), crlf_new);
  // Tabs on both sides, mixed indentation in new_string kept as written.
  EXPECT_EQ(ReindentAs("\ta\n", "\ta\n  \tb\n", "\ta", "\ta\n\t\tz\n"), "\ta\n  \tb\n");
}

TEST(WhitespaceMatchReindent, OddRemainderSpacesAreKeptAsAlignment) {
  const std::string file = "f() {\n\tcall(a,\n\t     b);\n}\n";
  const std::string out =
      ReindentAs("    call(a,\n         b);", "    call(a,\n         b,\n         c);",
                 "\tcall(a,\n\t     b);", file);
  EXPECT_EQ(out, "\tcall(a,\n\t     b,\n\t     c);");
}

TEST(WhitespaceMatchReindent, LevelsBelowZeroAreClamped) {
  // Tabs: 8 columns over 2 tabs says 4 columns a level; z is 2 levels left of y.
  EXPECT_EQ(ReindentAs("        y", "        y\nz\n", "\t\ty", "\tx\n\t\ty\n"), "\t\ty\nz\n");
  // Spaces: the model put y two levels deep, the file has it at one; c, two
  // levels left of y, cannot go below zero.
  EXPECT_EQ(ReindentAs("        y", "        y\nc", "    y", "a\n    y\n"), "    y\nc");
}

TEST(WhitespaceMatchReindent, BlankLinesLoseTheirIndentation) {
  const std::string file = "a\n\tb\n\t\tc\n";
  EXPECT_EQ(ReindentAs("    b\n", "    b\n    \n    c\n", "\tb", file), "\tb\n\n\tc\n");
}

TEST(WhitespaceMatchReindent, TabsBecomeSpacesInASpaceFile) {
  const std::string file = "def f():\n  if x:\n    y()\n  return 1\n";
  const std::string out =
      ReindentAs("\tif x:\n\t\ty()", "\tif x:\n\t\ty()\n\t\tz()", "  if x:\n    y()", file);
  EXPECT_EQ(out, "  if x:\n    y()\n    z()");
}

TEST(WhitespaceMatchReindent, FileWithoutIndentationTakesTheModelsStyle) {
  const std::string file = "a\nb\n";
  EXPECT_EQ(ReindentAs("  a", "  a\n    b", "a", file), "a\n  b");
}

}  // namespace
}  // namespace ikigai::file_edit
