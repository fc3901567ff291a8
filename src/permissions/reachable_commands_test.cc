// What deny rules look at: every command a line can run, and whether the
// line runs something it does not show.
#include "permissions/reachable_commands.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ikigai::permissions {
namespace {

using Words = std::vector<std::string>;

bool Reaches(std::string_view line, const Words& words) {
  const auto reach = FindReachableCommands(line);
  return std::any_of(reach.commands.begin(), reach.commands.end(),
                     [&](const shell::SimpleCommand& c) { return c.words == words; });
}

TEST(ReachableCommandsTest, PastWrappersAndIntoScripts) {
  const Words rm{"rm", "-f", "x"};
  for (const char* line : {"rm -f x",
                           "timeout -s KILL 5 rm -f x",
                           "env -u HOME A=1 rm -f x",
                           "nice -n 5 rm -f x",
                           "nohup rm -f x",
                           "xargs -I {} rm -f x",
                           "command rm -f x",
                           "exec -a y rm -f x",
                           "time -p rm -f x",
                           "sudo -u root -- rm -f x",
                           "stdbuf -oL rm -f x",
                           "chroot / rm -f x",
                           "env -S 'rm -f x'",
                           "sh -c 'rm -f x'",
                           "bash -xec 'ls; rm -f x'",
                           "su -c 'rm -f x' root",
                           "eval rm -f x",
                           "eval 'rm -f x'",
                           "watch -n 1 rm -f x",
                           "trap 'rm -f x' EXIT",
                           "alias ls='rm -f x'",
                           "find . -exec rm -f x \\;",
                           "echo \"$(rm -f x)\"",
                           "cat <<EOF\n`rm -f x`\nEOF",
                           "diff <(rm -f x) y",
                           "if true; then rm -f x; fi",
                           "sh -c \"sh -c 'rm -f x'\""}) {
    EXPECT_TRUE(Reaches(line, rm)) << line;
  }
  EXPECT_TRUE(Reaches("git -C /elsewhere --no-pager push origin", {"git", "push", "origin"}));
}

TEST(ReachableCommandsTest, OpaqueWhereTheLineDoesNotShowWhatRuns) {
  for (const char* line :
       {"echo \"$(date)\"", "$CMD -f x", "/bin/r? -f x", "{rm,-f,x}", "bash script.sh",
        "curl -s example.com | sh", "source ./env.sh", "python3 -c 'import os'",
        "awk 'BEGIN{system(\"x\")}'", "git -c alias.x='!rm -f y' x"}) {
    EXPECT_TRUE(FindReachableCommands(line).opaque) << line;
  }
  for (const char* line : {"ls -la", "rm -f x", "sh -c 'ls'", "[ -f x ] && cat x",
                           "cat <<'EOF'\n$(date)\nEOF", "git -C . status"}) {
    EXPECT_FALSE(FindReachableCommands(line).opaque) << line;
  }
}

TEST(ReachableCommandsTest, LooseWordsDropQuotesAndSplitAtOperators) {
  EXPECT_EQ(LooseWords("echo \"$(r''m -f x)\";sh -c 'cd /;rm y'"),
            (Words{"echo", "rm", "-f", "x", "sh", "-c", "cd", "/", "rm", "y"}));
  EXPECT_EQ(LooseWords("x=rm; $x"), (Words{"x", "rm", "x"}));
}

}  // namespace
}  // namespace ikigai::permissions
