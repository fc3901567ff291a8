// glob-tool through its real executable: seeds/000 examples and edge cases,
// DECISIONS §4 (**, hidden files, ignore files, budget).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

ToolRun Glob(const Json& args, const RunOptions& options = {}) {
  ToolRun run = RunTool("glob", args, options);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.json.is_object()) << run.out;
  return run;
}

void Touch(const std::string& path) { WriteFile(path, "x\n"); }
void MkDir(const std::string& path) { ASSERT_EQ(::mkdir(path.c_str(), 0755), 0) << path; }

void Git(const std::string& dir, const std::string& args) {
  const std::string cmd = "git -C '" + dir + "' " + args + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// A file name with a newline cannot forge an output line.
TEST(GlobTool, ControlCharactersInPathsAreEscaped) {
  TempDir dir;
  WriteFile(dir / "x\nfake.c", "");
  WriteFile(dir / "esc\x1b[2J.c", "");
  ToolRun run = Glob({{"pattern", "*.c"}}, {.cwd = dir.path()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.json["output"], "esc\\x1b[2J.c\nx\\nfake.c") << run.out;
  EXPECT_EQ(run.json["count"], 2);
}

TEST(GlobTool, SeedExampleJoinsPathSortsAndHasNoTrailingNewline) {
  TempDir dir;
  for (const char* f : {"notes.txt", "file2.txt", "file1.txt", "other.md"}) Touch(dir / f);
  ToolRun run = Glob({{"pattern", "*.txt"}, {"path", dir.path()}});
  EXPECT_EQ(run.json["output"],
            dir / "file1.txt" + "\n" + dir / "file2.txt" + "\n" + dir / "notes.txt");
  EXPECT_EQ(run.json["count"], 3);
}

TEST(GlobTool, NoMatchesIsAnEmptySuccess) {
  TempDir dir;
  Touch(dir / "a.md");
  ToolRun run = Glob({{"pattern", "*.txt"}, {"path", dir.path()}});
  EXPECT_EQ(run.out, R"({"output":"","count":0})");
}

TEST(GlobTool, SingleMatchHasNoNewline) {
  TempDir dir;
  Touch(dir / "only.txt");
  EXPECT_EQ(Glob({{"pattern", "*.txt"}, {"path", dir.path()}}).json["output"], dir / "only.txt");
}

TEST(GlobTool, PatternWithoutWildcardsMatchesExactly) {
  TempDir dir;
  Touch(dir / "Makefile");
  ToolRun run = Glob({{"pattern", "Makefile"}, {"path", dir.path()}});
  EXPECT_EQ(run.json["output"], dir / "Makefile");
  EXPECT_EQ(Glob({{"pattern", "Makefil"}, {"path", dir.path()}}).json["count"], 0);
}

TEST(GlobTool, RelativePathsResolveAgainstWorkingDirectory) {
  TempDir dir;
  MkDir(dir / "src");
  Touch(dir / "src/a.c");
  Touch(dir / "top.c");
  // No path: plain relative paths, as the pattern would print them.
  EXPECT_EQ(Glob({{"pattern", "*.c"}}, {.cwd = dir.path()}).json["output"], "top.c");
  EXPECT_EQ(Glob({{"pattern", "*.c"}, {"path", "src"}}, {.cwd = dir.path()}).json["output"],
            "src/a.c");
  EXPECT_EQ(Glob({{"pattern", "src/*.c"}}, {.cwd = dir.path()}).json["output"], "src/a.c");
}

TEST(GlobTool, WildcardsAndClasses) {
  TempDir dir;
  for (const char* f : {"a1.c", "b2.c", "c3.c", "ab.c"}) Touch(dir / f);
  const std::string p = dir.path();
  EXPECT_EQ(Glob({{"pattern", "?1.c"}, {"path", p}}).json["count"], 1);
  EXPECT_EQ(Glob({{"pattern", "[ab]?.c"}, {"path", p}}).json["count"], 3);
  EXPECT_EQ(Glob({{"pattern", "[!ab]*.c"}, {"path", p}}).json["output"], dir / "c3.c");
  EXPECT_EQ(Glob({{"pattern", "[a-b][0-9].c"}, {"path", p}}).json["count"], 2);
}

TEST(GlobTool, DoubleStarMatchesAnyDepthIncludingNone) {
  TempDir dir;
  MkDir(dir / "src");
  MkDir(dir / "src/a");
  MkDir(dir / "src/a/b");
  Touch(dir / "src/main.c");
  Touch(dir / "src/a/b/deep.c");
  Touch(dir / "src/a/b/deep.h");
  Touch(dir / "other.c");
  ToolRun run = Glob({{"pattern", "src/**/*.c"}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["output"], "src/a/b/deep.c\nsrc/main.c");
  EXPECT_EQ(Glob({{"pattern", "**/*.c"}}, {.cwd = dir.path()}).json["count"], 3);
}

TEST(GlobTool, DotfilesAreMatchedOnlyWhenThePatternSpellsTheDot) {
  TempDir dir;
  Touch(dir / ".hidden.txt");
  Touch(dir / "shown.txt");
  MkDir(dir / ".github");
  MkDir(dir / ".github/workflows");
  Touch(dir / ".github/workflows/ci.yml");
  const std::string p = dir.path();
  EXPECT_EQ(Glob({{"pattern", "*.txt"}, {"path", p}}).json["output"], dir / "shown.txt");
  EXPECT_EQ(Glob({{"pattern", ".*.txt"}, {"path", p}}).json["output"], dir / ".hidden.txt");
  EXPECT_EQ(Glob({{"pattern", "**/*.yml"}, {"path", p}}).json["count"], 0);
  EXPECT_EQ(Glob({{"pattern", ".github/**/*.yml"}, {"path", p}}).json["output"],
            dir / ".github/workflows/ci.yml");
}

TEST(GlobTool, GitDirectoryIsNeverListed) {
  TempDir dir;
  Git(dir.path(), "init -q");
  Touch(dir / "a.txt");
  EXPECT_EQ(Glob({{"pattern", ".git/*"}, {"path", dir.path()}, {"no_ignore", true}}).json["count"],
            0);
  EXPECT_EQ(Glob({{"pattern", "**"}, {"path", dir.path()}}).json["output"], dir / "a.txt");
}

TEST(GlobTool, GitignoreIsHonouredAndNoIgnoreLiftsIt) {
  TempDir dir;
  Git(dir.path(), "init -q");
  WriteFile(dir / ".gitignore", "build/\n*.log\n!keep.log\n");
  MkDir(dir / "build");
  Touch(dir / "build/out.c");
  Touch(dir / "main.c");
  Touch(dir / "debug.log");
  Touch(dir / "keep.log");
  ToolRun run = Glob({{"pattern", "**/*.c"}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["output"], "main.c");
  EXPECT_EQ(Glob({{"pattern", "*.log"}}, {.cwd = dir.path()}).json["output"], "keep.log");
  EXPECT_EQ(Glob({{"pattern", "**/*.c"}, {"no_ignore", true}}, {.cwd = dir.path()}).json["output"],
            "build/out.c\nmain.c");
}

TEST(GlobTool, EmptyResultSaysHowManyIgnoredFilesMatched) {
  TempDir dir;
  Git(dir.path(), "init -q");
  WriteFile(dir / ".gitignore", "*.o\n");
  Touch(dir / "a.o");
  Touch(dir / "b.o");
  ToolRun run = Glob({{"pattern", "*.o"}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["count"], 0);
  EXPECT_EQ(run.json["ignored_files"], 2);
  EXPECT_NE(run.json["hint"].get<std::string>().find("no_ignore"), std::string::npos);
}

TEST(GlobTool, MalformedPatternIsInvalidPattern) {
  TempDir dir;
  ToolRun run = Glob({{"pattern", "src/[abc.c"}, {"path", dir.path()}});
  EXPECT_EQ(run.json["error_code"], "INVALID_PATTERN");
  EXPECT_TRUE(run.json["error"].get<std::string>().starts_with("Invalid glob pattern")) << run.out;
  EXPECT_EQ(Glob({{"pattern", "x\\"}, {"path", dir.path()}}).json["error_code"], "INVALID_PATTERN");
  EXPECT_EQ(Glob({{"pattern", ""}, {"path", dir.path()}}).json["error_code"], "INVALID_ARG");
}

TEST(GlobTool, MissingDirectoryIsAnErrorNotAnEmptySuccess) {
  ToolRun run = Glob({{"pattern", "*.txt"}, {"path", "/nonexistent/dir"}});
  EXPECT_EQ(run.json["error_code"], "FILE_NOT_FOUND");
  EXPECT_NE(run.json["error"].get<std::string>().find("/nonexistent/dir"), std::string::npos);
  TempDir dir;
  Touch(dir / "file");
  EXPECT_EQ(Glob({{"pattern", "*"}, {"path", dir / "file"}}).json["error_code"], "INVALID_ARG");
}

TEST(GlobTool, AbsolutePatternWithoutPath) {
  TempDir dir;
  Touch(dir / "x.txt");
  EXPECT_EQ(Glob({{"pattern", dir / "*.txt"}}).json["output"], dir / "x.txt");
}

TEST(GlobTool, UnicodeAndInvalidUtf8Names) {
  TempDir dir;
  Touch(dir / "caf\xC3\xA9.txt");
  Touch(dir / "bad\xFFname.txt");
  ToolRun run = Glob({{"pattern", "*.txt"}, {"path", dir.path()}});
  ASSERT_TRUE(run.json.is_object()) << "output must stay valid JSON";
  EXPECT_EQ(run.json["count"], 2);
  const std::string out = run.json["output"];
  EXPECT_NE(out.find("caf\xC3\xA9.txt"), std::string::npos);
  EXPECT_NE(out.find("bad\xEF\xBF\xBDname.txt"), std::string::npos);
}

TEST(GlobTool, SymlinkLoopsTerminateWithoutDuplicates) {
  TempDir dir;
  MkDir(dir / "a");
  Touch(dir / "a/file.txt");
  ASSERT_EQ(::symlink("..", (dir / "a/up").c_str()), 0);
  ASSERT_EQ(::symlink(".", (dir / "self").c_str()), 0);
  ToolRun run =
      Glob({{"pattern", "**/*.txt"}, {"path", dir.path()}}, {.timeout = std::chrono::seconds(10)});
  EXPECT_EQ(run.json["output"], dir / "a/file.txt");
}

TEST(GlobTool, UnreadableDirectoryIsSkippedAsANonRootUser) {
  TempDir dir;
  MkDir(dir / "open");
  Touch(dir / "open/a.txt");
  ASSERT_EQ(::mkdir((dir / "closed").c_str(), 0700), 0);  // root's; nobody cannot read it
  Touch(dir / "closed/b.txt");
  ToolRun run = Glob({{"pattern", "**/*.txt"}, {"path", dir.path()}}, {.as_user = kNobody});
  EXPECT_EQ(run.json["output"], dir / "open/a.txt");
  EXPECT_EQ(run.json["unreadable_directories"], 1);
}

TEST(GlobTool, HundredThousandFilesAreCountedAndOutputStaysInBudget) {
  TempDir dir;
  MkDir(dir / "many");
  for (int i = 0; i < 100000; ++i) {
    const std::string p = dir / ("many/f" + std::to_string(i) + ".txt");
    const int fd = ::creat(p.c_str(), 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  ToolRun run = Glob({{"pattern", "many/*.txt"}, {"path", dir.path()}});
  EXPECT_EQ(run.json["count"], 100000);
  EXPECT_EQ(run.json["truncated"], true);
  EXPECT_LT(run.out.size(), 61u * 1024);
  const std::string out = run.json["output"];
  EXPECT_TRUE(out.starts_with(dir / "many/f0.txt\n" + dir / "many/f1.txt\n"));  // sorted
  EXPECT_NE(out.back(), '\n');
}

TEST(GlobTool, OutputIsTheSameOverRepeatedRuns) {
  TempDir dir;
  for (int d = 0; d < 20; ++d) {
    MkDir(dir / ("d" + std::to_string(d)));
    for (int f = 0; f < 50; ++f)
      Touch(dir / ("d" + std::to_string(d) + "/f" + std::to_string(f) + ".c"));
  }
  const std::string first = Glob({{"pattern", "**/*.c"}, {"path", dir.path()}}).out;
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(Glob({{"pattern", "**/*.c"}, {"path", dir.path()}}).out, first) << "run " << i;
  }
}

}  // namespace
}  // namespace ikigai::testing
