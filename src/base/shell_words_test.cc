// The shell-words parser shared by the bash tool's blocklist and the
// permission checks: what it must see, because a command hidden from it runs
// without a question (permissions) or past the blocklist.
#include "base/shell_words.h"

#include <gtest/gtest.h>

namespace ikigai::shell {
namespace {

using Kind = Substitution::Kind;
using Words = std::vector<std::string>;

std::vector<std::string> Bodies(std::string_view line) {
  std::vector<std::string> bodies;
  for (const Substitution& found : FindSubstitutions(line)) bodies.push_back(found.body);
  return bodies;
}

TEST(ShellWordsTest, SubstitutionsInsideDoubleQuotesAreFound) {
  EXPECT_EQ(Bodies("git status \"$(touch PWNED)\""), Words{"touch PWNED"});
  EXPECT_EQ(Bodies("echo \"`touch PWNED`\""), Words{"touch PWNED"});
  // A single quote inside double quotes is a plain character, not a quote
  // that hides what follows.
  EXPECT_EQ(Bodies("echo \"it's $(touch PWNED)\""), Words{"touch PWNED"});
  EXPECT_EQ(Bodies("echo \"$(echo \"a b\")\""), Words{"echo \"a b\""});
  EXPECT_EQ(Bodies("echo \"${x:-$(id)}\""), Words{"id"});
  EXPECT_EQ(Bodies("cat <(ls) >(wc)"), (Words{"ls", "wc"}));
  EXPECT_EQ(Bodies("echo \"\\`id\\` \\$(id)\""), Words{});  // escaped: plain text
}

TEST(ShellWordsTest, OnlyTheOutermostSubstitutionIsListed) {
  const auto found = FindSubstitutions("echo $(a $(b) `c`) `d`");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].kind, Kind::kCommand);
  EXPECT_EQ(found[0].body, "a $(b) `c`");
  EXPECT_EQ(found[1].kind, Kind::kBackquote);
  EXPECT_EQ(found[1].body, "d");
}

TEST(ShellWordsTest, SingleQuotesAndCommentsHideNothingTheShellWouldRun) {
  EXPECT_TRUE(Bodies("grep '$(foo)' a.sh").empty());
  EXPECT_TRUE(Bodies("echo $'$(foo)'").empty());
  EXPECT_TRUE(Bodies("ls # $(not run)").empty());
  EXPECT_EQ(Bodies("echo a#$(id)"), Words{"id"}) << "# inside a word is no comment";
  EXPECT_EQ(Bodies("echo $#$(id)"), Words{"id"});
  EXPECT_FALSE(HasSubstitution("echo 'a > b'"));
}

TEST(ShellWordsTest, UnquotedHereDocumentsExpandQuotedOnesDoNot) {
  EXPECT_EQ(Bodies("cat <<EOF\n$(touch PWNED)\nEOF"), Words{"touch PWNED"});
  EXPECT_EQ(Bodies("cat <<-EOF\n\t'`touch PWNED`'\n\tEOF\necho done"), Words{"touch PWNED"});
  EXPECT_TRUE(Bodies("cat <<'EOF'\n$(touch PWNED)\nEOF").empty());
  EXPECT_TRUE(Bodies("cat <<\"EOF\"\n$(touch PWNED)\nEOF").empty());
  EXPECT_TRUE(Bodies("cat <<\\EOF\n$(touch PWNED)\nEOF").empty());
  // After the delimiter line the script goes on.
  EXPECT_EQ(Bodies("cat <<'EOF'\n$(a)\nEOF\necho \"$(b)\""), Words{"b"});
}

TEST(ShellWordsTest, ArithmeticCountsAsAnExpansion) {
  EXPECT_EQ(FindSubstitutions("echo $((1 << 2))").at(0).kind, Kind::kArithmetic);
  EXPECT_EQ(FindSubstitutions("echo $[1 << 2]").at(0).kind, Kind::kArithmetic);
  EXPECT_EQ(FindSubstitutions("((x = 1 << 2))").at(0).kind, Kind::kArithmetic);
  // $( (...) ) that does not close with "))" is a command substitution.
  const auto subshell = FindSubstitutions("echo $((ls) | wc)");
  ASSERT_EQ(subshell.size(), 1u);
  EXPECT_EQ(subshell[0].kind, Kind::kCommand);
  EXPECT_EQ(subshell[0].body, "(ls) | wc");
}

TEST(ShellWordsTest, ShiftsAreNoHereDocuments) {
  // `<<` in arithmetic is a shift: the lines after it are commands.
  const auto commands = SplitCommands("((y = 1 << 2))\nrm -rf victim\n2");
  ASSERT_GE(commands.size(), 2u);
  EXPECT_EQ(commands[1].words, (Words{"rm", "-rf", "victim"}));
}

TEST(ShellWordsTest, DescriptorDuplicationsAreNotFiles) {
  EXPECT_TRUE(SplitCommands("ls 2>&1 >&2 2>&- 3>&1-").at(0).output_files.empty());
  EXPECT_EQ(SplitCommands("echo x > 123").at(0).output_files, Words{"123"});
  EXPECT_EQ(SplitCommands("ls > -").at(0).output_files, Words{"-"});
  EXPECT_EQ(SplitCommands("ls >& out").at(0).output_files, Words{"out"});
  EXPECT_EQ(SplitCommands("echo pwned 1<>f").at(0).output_files, Words{"f"});
  EXPECT_EQ(SplitCommands("echo pwned <>f").at(0).output_files, Words{"f"});
  EXPECT_TRUE(SplitCommands("wc < in").at(0).output_files.empty());
}

TEST(ShellWordsTest, QuotingIsRemovedAsTheShellDoes) {
  EXPECT_EQ(SplitCommands("$'r\\x6d' -f $'a\\'b'").at(0).words, (Words{"rm", "-f", "a'b"}));
  EXPECT_EQ(SplitCommands("r''m \\-f $\"x\"").at(0).words, (Words{"rm", "-f", "x"}));
  // A substitution inside double quotes stays in its word, quotes and all,
  // whatever quotes it holds; what follows is the next command.
  const auto commands = SplitCommands("echo \"$(echo \"'\")\" ; rm -f victim");
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].words, (Words{"echo", "$(echo \"'\")"}));
  EXPECT_EQ(commands[1].words, (Words{"rm", "-f", "victim"}));
}

}  // namespace
}  // namespace ikigai::shell
