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

// Options and redirections of read-only programs that write a file or run
// a program: each would run unasked in every mode.
TEST(ReadOnlyCommandTest, OptionsAndRedirectionsThatWriteOrRunAreNot) {
  for (const char* command : {"echo pwned 1<>f",
                              "cat <>f",
                              "echo x > 123",
                              "ls > -",
                              "ls 2> 2",
                              "ls >& out",
                              "sort -o out in",
                              "sort -uo out in",
                              "sort -nuo out in",
                              "sort --output=out in",
                              "sort --out=out in",
                              "sort --compress-program=sh in",
                              "sort --compress=sh in",
                              "git --config-env=core.pager=EVIL log",
                              "git -c core.pager=evil log",
                              "git -p log",
                              "git --paginate log",
                              "git --git-dir=/tmp/evil status",
                              "git --work-tree=/tmp diff",
                              "git --exec-path=/tmp/evil log",
                              "git cat-file --filters HEAD:a.c",
                              "git cat-file --textconv HEAD:a.c",
                              "git cat-file --batch --filters",
                              "git grep -O foo",
                              "git grep -Ovim foo",
                              "git grep -nO foo",
                              "git grep --open-files-in-pager=vim foo",
                              "git grep --open foo",
                              "git log --ext-diff -p",
                              "git diff --ext-diff",
                              "git show --ext-diff",
                              "git diff --output=patch.txt",
                              "git log -p --output=out",
                              "git log --outp=out",
                              "git show --textconv HEAD:a.c",
                              "git config --get x --edit",
                              "rg --pre sh foo",
                              "rg --pre=./x foo",
                              "printf -v name x",
                              "echo \"it's $(touch PWNED)\"",
                              "cat <<EOF\n'$(touch PWNED)'\nEOF",
                              "((y = 1 << 2))\nrm -rf victim\n2",
                              "echo $((1 << 2))\nrm -rf victim\n2",
                              "fd -Hx rm",
                              "less README.md",
                              "more README.md",
                              "tee out",
                              "awk '{print}' f",
                              "sed -n p f",
                              "xargs cat",
                              "env cat f"}) {
    EXPECT_FALSE(IsReadOnlyCommand(command)) << command;
  }
  for (const char* command :
       {"ls 2>&1", "ls >&2", "ls 2>&-", "cat a.txt 2>/dev/null >&2", "sort -u in",
        "sort -k1,1 -t, in", "sort -to in", "git grep -n foo",
        "git log --oneline --output-indicator-new=+", "git diff --stat", "git --no-pager log -3",
        "git cat-file -p HEAD", "cat <<'EOF'\n$(touch x)\nEOF", "rg -n foo", "printf '%s\\n' x"}) {
    EXPECT_TRUE(IsReadOnlyCommand(command)) << command;
  }
}

TEST(ReadOnlyCommandTest, QuotedTextIsNotASubstitution) {
  EXPECT_TRUE(IsReadOnlyCommand("grep -n '$(foo)' src/a.sh"));
  EXPECT_TRUE(IsReadOnlyCommand("echo 'a > b'"));
  EXPECT_FALSE(IsReadOnlyCommand("echo \"$(rm x)\""));
}

}  // namespace
}  // namespace ikigai::permissions
