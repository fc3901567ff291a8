#include "search/line_matcher.h"

#include <gtest/gtest.h>

namespace ikigai::search {
namespace {

LineMatcher Matcher(std::string_view pattern, bool ignore_case = false) {
  auto m = LineMatcher::Compile(pattern, {.ignore_case = ignore_case});
  EXPECT_TRUE(m.ok()) << pattern;
  return std::move(*m);
}

// All matching lines' texts.
std::vector<std::string> Lines(const LineMatcher& m, std::string_view text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (auto line = m.NextMatch(text, from)) {
    out.emplace_back(text.substr(line->begin, line->end - line->begin));
    from = line->end + 1;
  }
  return out;
}

using V = std::vector<std::string>;

TEST(LineMatcher, LiteralLines) {
  EXPECT_EQ(Lines(Matcher("TODO"), "a\n// TODO: x\nb\nTODO\n"), (V{"// TODO: x", "TODO"}));
}

TEST(LineMatcher, EreSyntaxAndPerlClasses) {
  const std::string text = "foo1\nbar\nfoo22 baz\nqux\n";
  EXPECT_EQ(Lines(Matcher("foo[0-9]+"), text), (V{"foo1", "foo22 baz"}));
  EXPECT_EQ(Lines(Matcher("(bar|qux)"), text), (V{"bar", "qux"}));
  EXPECT_EQ(Lines(Matcher("^foo\\d{2}\\s\\w+$"), text), (V{"foo22 baz"}));
  EXPECT_EQ(Lines(Matcher("\\bbaz\\b"), text), (V{"foo22 baz"}));
  EXPECT_EQ(Lines(Matcher("[[:digit:]]"), text), (V{"foo1", "foo22 baz"}));
}

TEST(LineMatcher, AnchorsWorkPerLine) {
  EXPECT_EQ(Lines(Matcher("^b"), "abc\nbcd\nb"), (V{"bcd", "b"}));
  EXPECT_EQ(Lines(Matcher("c$"), "abc\nbcd\n"), (V{"abc"}));
}

TEST(LineMatcher, MatchesNeverSpanLines) {
  EXPECT_TRUE(Lines(Matcher("template\\s*<"), "template\n<class T>\n").empty());
  EXPECT_TRUE(Lines(Matcher("a[^x]*b"), "a\nb\n").empty());
  EXPECT_EQ(Lines(Matcher("template\\s*<\\s*class\\s+\\w+"), "template\n<x>\ntemplate <class T>\n"),
            (V{"template <class T>"}));
}

TEST(LineMatcher, RequiredLiteralIsOnlyAHint) {
  // "class" occurs on lines that do not match the whole regex.
  const std::string text = "class A;\ntemplate <class T>\nclass B {};\n";
  EXPECT_EQ(Lines(Matcher("template\\s*<\\s*class\\s+\\w+"), text), (V{"template <class T>"}));
}

TEST(LineMatcher, IgnoreCase) {
  EXPECT_EQ(Lines(Matcher("noexcept", true), "a NOEXCEPT\nb noexcept\nc\n"),
            (V{"a NOEXCEPT", "b noexcept"}));
  EXPECT_EQ(Lines(Matcher("no(ex)cept", true), "NoExCept\n"), (V{"NoExCept"}));
  EXPECT_TRUE(Lines(Matcher("noexcept"), "NOEXCEPT\n").empty());
}

TEST(LineMatcher, EmptyMatchesAndEmptyPatternGiveRealLinesOnly) {
  EXPECT_EQ(Lines(Matcher("x*"), "a\nb\n"), (V{"a", "b"}));
  EXPECT_EQ(Lines(Matcher(""), "a\n\nb"), (V{"a", "", "b"}));
  EXPECT_TRUE(Lines(Matcher("x*"), "").empty());
}

TEST(LineMatcher, PrefilterRulesOutBuffers) {
  const LineMatcher m = Matcher("template\\s*<\\s*class");
  EXPECT_FALSE(m.MayMatch("nothing to see here\n"));
  EXPECT_TRUE(m.MayMatch("TEMPLATE <CLASS\n"));  // case-insensitive atoms: a superset
  const LineMatcher alt = Matcher("(alpha|beta)1");
  EXPECT_FALSE(alt.MayMatch("gamma1\n"));
  EXPECT_TRUE(alt.MayMatch("beta1\n"));
  EXPECT_TRUE(Matcher("a.c").MayMatch("zzz"));  // no atoms: cannot rule out
}

TEST(LineMatcher, CatastrophicPatternsRunInLinearTime) {
  const std::string text = std::string(30000, 'a') + "\n";
  EXPECT_TRUE(Lines(Matcher("(a+)+b"), text).empty());
  EXPECT_TRUE(Lines(Matcher("(a|aa)*c"), text).empty());
}

TEST(LineMatcher, InvalidPatternsGiveTheEnginesMessage) {
  auto m = LineMatcher::Compile("foo(", {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("missing )"), std::string::npos) << m.error();
  EXPECT_FALSE(LineMatcher::Compile("[z-a]", {}).ok());
  EXPECT_FALSE(LineMatcher::Compile("a**", {}).ok());
}

}  // namespace
}  // namespace ikigai::search
