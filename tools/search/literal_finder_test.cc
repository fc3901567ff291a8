#include "search/literal_finder.h"

#include <gtest/gtest.h>

#include <random>

namespace ikigai::search {
namespace {

constexpr auto npos = std::string_view::npos;

TEST(LiteralFinder, FindsEveryOccurrenceLikeStdFind) {
  std::mt19937 rng(42);
  std::string hay;
  for (int i = 0; i < 20000; ++i) hay += "abcxyz \n"[rng() % 8];
  for (const std::string needle : {"a", "ab", "xyz", "cx", "zz a", "abcxyzabc", "q"}) {
    LiteralFinder finder(needle, false);
    std::size_t from = 0;
    for (;;) {
      const std::size_t want = hay.find(needle, from);
      const std::size_t got = finder.Find(hay, from);
      ASSERT_EQ(got, want) << needle << " from " << from;
      if (want == npos) break;
      from = want + 1;
    }
  }
}

TEST(LiteralFinder, MatchesAtTheVeryEndAndNotPastIt) {
  LiteralFinder finder("END", false);
  const std::string hay = std::string(40, '.') + "END";
  EXPECT_EQ(finder.Find(hay), 40u);
  EXPECT_EQ(finder.Find(std::string_view(hay).substr(0, 42)), npos);
  EXPECT_EQ(finder.Find(hay, 41), npos);
}

TEST(LiteralFinder, IgnoreCaseFoldsAsciiLettersOnly) {
  LiteralFinder finder("NoExcept", true);
  EXPECT_EQ(finder.Find("void f() NOEXCEPT;"), 9u);
  EXPECT_EQ(finder.Find(std::string(100, ' ') + "noexcept"), 100u);
  EXPECT_EQ(finder.Find("no-except"), npos);
  LiteralFinder symbols("a@b", true);  // '@' | 0x20 == '`': must not match
  EXPECT_EQ(symbols.Find(std::string(32, ' ') + "a`b" + std::string(32, ' ')), npos);
  EXPECT_EQ(symbols.Find(std::string(32, ' ') + "A@B"), 32u);
}

TEST(LiteralFinder, CaseSensitiveByDefault) {
  LiteralFinder finder("BOOST_ASSERT", false);
  EXPECT_EQ(finder.Find("boost_assert BOOST_ASSERT"), 13u);
}

TEST(LiteralFinder, NonAsciiNeedles) {
  LiteralFinder finder("caf\xC3\xA9", true);
  EXPECT_EQ(finder.Find(std::string(20, 'x') + "CAF\xC3\xA9"), 20u);
}

TEST(LiteralFinder, CountsNewlines) {
  const std::string text = "a\nb\n\n" + std::string(100, 'x') + "\n";
  EXPECT_EQ(CountNewlines(text.data(), text.data() + text.size()), 4u);
  EXPECT_EQ(CountNewlines(text.data(), text.data() + 2), 1u);
}

}  // namespace
}  // namespace ikigai::search
