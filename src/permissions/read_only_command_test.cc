#include "permissions/read_only_command.h"

#include <gtest/gtest.h>

namespace ikigai::permissions {
namespace {

TEST(ReadOnlyCommandTest, CommandsThatOnlyRead) {
  for (const char* command :
       {"ls -la", "cat a | grep b | wc -l", "git status && git diff", "grep -r foo . 2>/dev/null",
        "find . -name '*.c'", "git log --oneline -5", "head -n 20 README.md >&2", "pwd; ls",
        "rg -n 'TODO' src", "git branch -a", "git show HEAD:src/a.c", "echo done", "env"}) {
    EXPECT_TRUE(IsReadOnlyCommand(command)) << command;
  }
}

TEST(ReadOnlyCommandTest, CommandsThatWriteOrRunOthersAreNot) {
  for (const char* command : {"ls > f",
                              "cat x | tee y",
                              "git status; rm x",
                              "echo $(rm x)",
                              "echo `rm x`",
                              "find . -delete",
                              "find . -exec rm {} \\;",
                              "cat <(rm x)",
                              "sort -o out in",
                              "git branch -D x",
                              "FOO=1 rm x",
                              "rm -rf build",
                              "make",
                              "git commit -m x",
                              "git -C /elsewhere status",
                              "env rm x",
                              "python3 -c 'print(1)'",
                              "sed -i s/a/b/ f",
                              "echo hi >> notes.txt",
                              "ls &> out.txt",
                              "",
                              "unknown-program",
                              "fd -x rm"}) {
    EXPECT_FALSE(IsReadOnlyCommand(command)) << command;
  }
}

TEST(ReadOnlyCommandTest, QuotedTextIsNotASubstitution) {
  EXPECT_TRUE(IsReadOnlyCommand("grep -n '$(foo)' src/a.sh"));
  EXPECT_TRUE(IsReadOnlyCommand("echo 'a > b'"));
  EXPECT_FALSE(IsReadOnlyCommand("echo \"$(rm x)\""));
}

}  // namespace
}  // namespace ikigai::permissions
