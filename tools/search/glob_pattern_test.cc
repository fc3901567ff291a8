#include "search/glob_pattern.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace ikigai::search {
namespace {

GlobPattern Glob(std::string_view pattern, bool dot_is_special = true) {
  auto glob = GlobPattern::Compile(pattern, {.dot_is_special = dot_is_special});
  EXPECT_TRUE(glob.ok()) << pattern << ": " << (glob.ok() ? "" : glob.error());
  return std::move(*glob);
}

TEST(GlobPattern, StarAndQuestionMarkWithinOneSegment) {
  EXPECT_TRUE(Glob("*.txt").Matches("file1.txt"));
  EXPECT_TRUE(Glob("*.txt").Matches(".txt") == false);  // leading dot not matched by '*'
  EXPECT_FALSE(Glob("*.txt").Matches("dir/file.txt"));  // '*' never crosses '/'
  EXPECT_TRUE(Glob("file?.txt").Matches("file1.txt"));
  EXPECT_FALSE(Glob("file?.txt").Matches("file10.txt"));
  EXPECT_TRUE(Glob("a*b*c").Matches("aXXbYYbZc"));
  EXPECT_FALSE(Glob("a*b*c").Matches("aXXbYYbZ"));
  EXPECT_TRUE(Glob("*").Matches("anything"));
}

TEST(GlobPattern, QuestionMarkMatchesOneCharacterNotOneByte) {
  EXPECT_TRUE(Glob("caf?").Matches("caf\xC3\xA9"));
  EXPECT_FALSE(Glob("caf??").Matches("caf\xC3\xA9"));
}

TEST(GlobPattern, BracketExpressions) {
  EXPECT_TRUE(Glob("[abc].c").Matches("b.c"));
  EXPECT_FALSE(Glob("[abc].c").Matches("d.c"));
  EXPECT_TRUE(Glob("[a-z]1").Matches("q1"));
  EXPECT_TRUE(Glob("[!a-z]1").Matches("Q1"));
  EXPECT_FALSE(Glob("[!a-z]1").Matches("q1"));
  EXPECT_TRUE(Glob("[^0-9]").Matches("x"));
  EXPECT_TRUE(Glob("[]]").Matches("]"));
  EXPECT_TRUE(Glob("[[:digit:]]x").Matches("7x"));
  EXPECT_TRUE(Glob("[\xC3\xA9"
                   "e]t\xC3\xA9")
                  .Matches("\xC3\xA9t\xC3\xA9"));
}

TEST(GlobPattern, EscapesMakeWildcardsLiteral) {
  EXPECT_TRUE(Glob("a\\*b").Matches("a*b"));
  EXPECT_FALSE(Glob("a\\*b").Matches("axb"));
  EXPECT_TRUE(Glob("\\[x\\]").Matches("[x]"));
}

TEST(GlobPattern, GlobstarMatchesAnyDepth) {
  const GlobPattern g = Glob("src/**/*.c");
  EXPECT_TRUE(g.Matches("src/main.c"));  // zero directories
  EXPECT_TRUE(g.Matches("src/a/b/c/util.c"));
  EXPECT_FALSE(g.Matches("lib/main.c"));
  EXPECT_FALSE(g.Matches("src/main.h"));
  EXPECT_TRUE(Glob("**/*.hpp").Matches("x.hpp"));
  EXPECT_TRUE(Glob("**/*.hpp").Matches("boost/asio/x.hpp"));
  EXPECT_TRUE(Glob("**").Matches("a/b"));
}

TEST(GlobPattern, TrailingGlobstarIsWhatIsInside) {
  const GlobPattern g = Glob("build/**");
  EXPECT_TRUE(g.Matches("build/x"));
  EXPECT_TRUE(g.Matches("build/x/y.o"));
  EXPECT_FALSE(g.Matches("build"));
}

TEST(GlobPattern, WildcardsDoNotEnterHiddenDirectoriesUnlessNamed) {
  EXPECT_FALSE(Glob("**/*.yml").Matches(".github/workflows/ci.yml"));
  EXPECT_TRUE(Glob(".github/**/*.yml").Matches(".github/workflows/ci.yml"));
  EXPECT_TRUE(Glob(".*").Matches(".bashrc"));
  EXPECT_FALSE(Glob("*/x").Matches(".hidden/x"));
}

TEST(GlobPattern, WithoutDotRuleWildcardsMatchDots) {
  EXPECT_TRUE(Glob("*.log", false).Matches(".hidden.log"));
  EXPECT_TRUE(Glob("**/x", false).Matches(".a/x"));
}

TEST(GlobPattern, MalformedPatternsAreErrorsThatSayWhy) {
  auto unclosed = GlobPattern::Compile("src/[abc.c");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_NE(unclosed.error().find("unclosed '['"), std::string::npos);
  auto escape = GlobPattern::Compile("abc\\");
  ASSERT_FALSE(escape.ok());
  EXPECT_NE(escape.error().find("escape"), std::string::npos);
  EXPECT_FALSE(GlobPattern::Compile("[z-a]").ok());
  EXPECT_FALSE(GlobPattern::Compile("[[:nope:]]").ok());
  EXPECT_FALSE(GlobPattern::Compile("").ok());
}

TEST(GlobPattern, CouldMatchBelowPrunesDirectories) {
  const GlobPattern g = Glob("src/**/*.c");
  EXPECT_TRUE(g.CouldMatchBelow(""));
  EXPECT_TRUE(g.CouldMatchBelow("src"));
  EXPECT_TRUE(g.CouldMatchBelow("src/a/b"));
  EXPECT_FALSE(g.CouldMatchBelow("lib"));
  EXPECT_FALSE(g.CouldMatchBelow("src/.git"));
  const GlobPattern top = Glob("*.txt");
  EXPECT_TRUE(top.CouldMatchBelow(""));
  EXPECT_FALSE(top.CouldMatchBelow("sub"));
  const GlobPattern deep = Glob("a/b/*.c");
  EXPECT_TRUE(deep.CouldMatchBelow("a"));
  EXPECT_TRUE(deep.CouldMatchBelow("a/b"));
  EXPECT_FALSE(deep.CouldMatchBelow("a/b/c"));
  EXPECT_TRUE(Glob("**/*.hpp").CouldMatchBelow("x/y"));
  EXPECT_FALSE(Glob("**/*.hpp").CouldMatchBelow(".hidden"));
}

TEST(GlobPattern, BaseNameOnlyPatterns) {
  EXPECT_TRUE(Glob("*.c").IsBaseNameOnly());
  EXPECT_FALSE(Glob("src/*.c").IsBaseNameOnly());
  EXPECT_FALSE(Glob("**").IsBaseNameOnly());
}

TEST(GlobPattern, PathologicalStarsStayFast) {
  const GlobPattern g = Glob("*a*a*a*a*a*a*a*a*b");
  EXPECT_FALSE(g.Matches(std::string(5000, 'a')));
}

// Found by fuzz/glob_pattern_fuzz.cc (a timeout): with several `**`,
// trying each split of the path between them in turn took time exponential
// in their number; ten `**` against an 80-part path never finished.
TEST(GlobPattern, ManyGlobstarsStayFast) {
  std::string path;
  for (int i = 0; i < 80; ++i) path += "a/";
  const auto start = std::chrono::steady_clock::now();
  for (int globstars : {10, 40}) {  // 40: more segments than the matcher's inline buffer
    std::string pattern;
    for (int i = 0; i < globstars; ++i) pattern += "**/a/";
    const GlobPattern g = Glob(pattern + "b");
    EXPECT_FALSE(g.Matches(path + "c")) << globstars;
    EXPECT_TRUE(g.Matches(path + "b")) << globstars;
    EXPECT_TRUE(g.CouldMatchBelow(path)) << globstars;
    EXPECT_FALSE(g.CouldMatchBelow("a/.git")) << globstars;  // `**` skips hidden names
  }
  EXPECT_FALSE(Glob("a/**/b/**").Matches("a/b"));  // a trailing `**` takes a part
  EXPECT_TRUE(Glob("a/**/b/**").Matches("a/x/b/c"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

}  // namespace
}  // namespace ikigai::search
