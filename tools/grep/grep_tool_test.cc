// grep-tool through its real executable: seeds/000 examples and edge cases,
// DECISIONS §4 (dialect, modes, context, ignore files, budget).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

ToolRun Grep(const Json& args, const RunOptions& options = {}) {
  ToolRun run = RunTool("grep", args, options);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.json.is_object()) << run.out;
  return run;
}

void MkDir(const std::string& path) { ASSERT_EQ(::mkdir(path.c_str(), 0755), 0) << path; }

void Git(const std::string& dir, const std::string& args) {
  const std::string cmd = "git -C '" + dir + "' " + args + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

std::string Lines(int first, int last, const std::string& text) {
  std::string out;
  for (int i = first; i <= last; ++i) out += text + " " + std::to_string(i) + "\n";
  return out;
}

// The seed's tree: src/main.c with a TODO on line 42, src/util.c on line 15.
void SeedTree(const TempDir& dir) {
  MkDir(dir / "src");
  WriteFile(dir / "src/main.c",
            Lines(1, 41, "int a") + "// TODO: implement error handling\n" + Lines(43, 50, "x"));
  WriteFile(dir / "src/util.c", Lines(1, 14, "int b") + "// TODO: optimize this\n");
  WriteFile(dir / "src/notes.txt", "TODO: not a .c file\n");
}

TEST(GrepTool, SeedExample) {
  TempDir dir;
  SeedTree(dir);
  ToolRun run = Grep({{"pattern", "TODO"}, {"glob", "*.c"}, {"path", "src"}}, {.cwd = dir.path()});
  EXPECT_EQ(
      run.out,
      R"({"output":"src/main.c:42: // TODO: implement error handling\nsrc/util.c:15: // TODO: optimize this","count":2})");
}

// A file name with a newline cannot forge an output line.
TEST(GrepTool, ControlCharactersInPathsAreEscaped) {
  TempDir dir;
  WriteFile(dir / "x\nfake.c:1: injected", "needle\n");
  WriteFile(dir / "esc\x1b[2J.c", "needle\n");
  ToolRun run = Grep({{"pattern", "needle"}}, {.cwd = dir.path()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.json["output"], "esc\\x1b[2J.c:1: needle\nx\\nfake.c:1: injected:1: needle")
      << run.out;
  EXPECT_EQ(run.json["count"], 2);
}

// An explicit path that is neither a file nor a directory is an error, not
// an empty success (and a FIFO is never opened, so nothing blocks).
TEST(GrepTool, ADeviceOrFifoAsPathIsAnError) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  for (const std::string& path : {std::string("/dev/null"), dir / "fifo"}) {
    ToolRun run = Grep({{"pattern", "x"}, {"path", path}});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.json["error_code"], "INVALID_ARG") << run.out;
    EXPECT_NE(run.json["error"].get<std::string>().find("Not a file or directory: " + path),
              std::string::npos)
        << run.out;
  }
}

TEST(GrepTool, NoMatchesIsAnEmptySuccess) {
  TempDir dir;
  SeedTree(dir);
  EXPECT_EQ(Grep({{"pattern", "FIXME"}}, {.cwd = dir.path()}).out, R"({"output":"","count":0})");
}

TEST(GrepTool, EmptyPathAndEmptyGlobSearchEverythingFromHere) {
  TempDir dir;
  SeedTree(dir);
  ToolRun run = Grep({{"pattern", "TODO"}, {"path", ""}, {"glob", ""}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["count"], 3);
  EXPECT_TRUE(run.json["output"].get<std::string>().starts_with("src/main.c:42: "));
}

TEST(GrepTool, InvalidRegexIsInvalidPatternWithTheEnginesMessage) {
  ToolRun run = Grep({{"pattern", "foo("}});
  EXPECT_EQ(run.json["error_code"], "INVALID_PATTERN");
  const std::string error = run.json["error"];
  EXPECT_TRUE(error.starts_with("Invalid pattern: missing )")) << error;
  EXPECT_EQ(error.find("(?m)"), std::string::npos) << error;
  EXPECT_EQ(Grep({{"pattern", "x"}, {"glob", "[a"}}).json["error_code"], "INVALID_PATTERN");
}

TEST(GrepTool, PosixEreAndPerlClasses) {
  TempDir dir;
  WriteFile(dir / "f.txt", "foo1\nbar\nfoo22 baz\nqux\nfoo(x)\n");
  auto count = [&](const std::string& pattern) {
    return Grep({{"pattern", pattern}, {"path", dir.path()}}).json["count"].get<int>();
  };
  EXPECT_EQ(count("foo[0-9]+"), 2);
  EXPECT_EQ(count("^(bar|qux)$"), 2);
  EXPECT_EQ(count("o{2}"), 3);
  EXPECT_EQ(count("\\d\\d\\s\\w+"), 1);
  EXPECT_EQ(count("\\bbaz\\b"), 1);
  EXPECT_EQ(count("[[:digit:]]"), 2);
  EXPECT_EQ(count("foo\\(x\\)"), 1);
  EXPECT_EQ(count("b.z"), 1);
  EXPECT_EQ(count("a.z"), 0);
}

TEST(GrepTool, IgnoreCase) {
  TempDir dir;
  WriteFile(dir / "f.txt", "Error one\nerror two\nERROR three\nfine\n");
  EXPECT_EQ(Grep({{"pattern", "error"}, {"path", dir.path()}}).json["count"], 1);
  EXPECT_EQ(Grep({{"pattern", "error"}, {"path", dir.path()}, {"ignore_case", true}}).json["count"],
            3);
}

TEST(GrepTool, OutputModes) {
  TempDir dir;
  WriteFile(dir / "b.txt", "x\nx\n");
  WriteFile(dir / "a.txt", "x\n");
  WriteFile(dir / "c.txt", "y\n");
  ToolRun files =
      Grep({{"pattern", "x"}, {"output_mode", "files_with_matches"}}, {.cwd = dir.path()});
  EXPECT_EQ(files.json["output"], "a.txt\nb.txt");
  EXPECT_EQ(files.json["count"], 2);
  ToolRun counts = Grep({{"pattern", "x"}, {"output_mode", "count"}}, {.cwd = dir.path()});
  EXPECT_EQ(counts.json["output"], "a.txt:1\nb.txt:2");
  EXPECT_EQ(counts.json["count"], 3);
  ToolRun bad = Grep({{"pattern", "x"}, {"output_mode", "lines"}}, {.cwd = dir.path()});
  EXPECT_EQ(bad.json["error_code"], "INVALID_ARG");
  EXPECT_NE(bad.json["error"].get<std::string>().find("'output_mode'"), std::string::npos);
}

TEST(GrepTool, HeadLimitCutsOutputButCountsEverything) {
  TempDir dir;
  WriteFile(dir / "f.txt", Lines(1, 10, "match"));
  ToolRun run = Grep({{"pattern", "match"}, {"path", dir / "f.txt"}, {"head_limit", 3}});
  EXPECT_EQ(run.json["output"],
            dir / "f.txt:1: match 1\n" + dir / "f.txt:2: match 2\n" + dir / "f.txt:3: match 3");
  EXPECT_EQ(run.json["count"], 10);
  EXPECT_EQ(run.json["truncated"], true);
  EXPECT_EQ(Grep({{"pattern", "x"}, {"head_limit", -1}}).json["error_code"], "INVALID_ARG");
}

TEST(GrepTool, ContextLinesAndGroupSeparators) {
  TempDir dir;
  WriteFile(dir / "f.txt", "a\nb\nHIT\nc\nd\ne\nf\nHIT\ng\n");
  ToolRun run = Grep({{"pattern", "HIT"}, {"context", 1}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["output"],
            "f.txt-2- b\nf.txt:3: HIT\nf.txt-4- c\n--\nf.txt-7- f\nf.txt:8: HIT\nf.txt-9- g");
  EXPECT_EQ(run.json["count"], 2);
  // Overlapping context merges into one group, without repeats.
  ToolRun merged = Grep({{"pattern", "HIT"}, {"context", 3}}, {.cwd = dir.path()});
  const std::string out = merged.json["output"];
  EXPECT_EQ(out.find("--"), std::string::npos) << out;
  EXPECT_TRUE(out.starts_with("f.txt-1- a\n")) << out;
  EXPECT_TRUE(out.ends_with("f.txt-9- g")) << out;
}

TEST(GrepTool, LongLinesAreCutWithAMarker) {
  TempDir dir;
  WriteFile(dir / "min.js", "var x='" + std::string(3000, 'q') + "';\n");
  ToolRun run = Grep({{"pattern", "var"}}, {.cwd = dir.path()});
  const std::string out = run.json["output"];
  EXPECT_LT(out.size(), 600u);
  EXPECT_NE(out.find("[... line cut: "), std::string::npos) << out;
}

TEST(GrepTool, BinaryFilesAreSkipped) {
  TempDir dir;
  WriteFile(dir / "bin.dat", std::string("needle") + '\0' + "needle\n");
  WriteFile(dir / "text.txt", "needle\n");
  ToolRun run = Grep({{"pattern", "needle"}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["output"], "text.txt:1: needle");
}

TEST(GrepTool, UnicodeAndInvalidUtf8) {
  TempDir dir;
  WriteFile(dir / "caf\xC3\xA9.txt", "d\xC3\xA9j\xC3\xA0 vu\nbad \xFF byte vu\n");
  ToolRun run = Grep({{"pattern", "vu"}}, {.cwd = dir.path()});
  ASSERT_TRUE(run.json.is_object()) << "output must stay valid JSON";
  EXPECT_EQ(
      run.json["output"],
      "caf\xC3\xA9.txt:1: d\xC3\xA9j\xC3\xA0 vu\ncaf\xC3\xA9.txt:2: bad \xEF\xBF\xBD byte vu");
  EXPECT_EQ(Grep({{"pattern", "d.j.\\s"}}, {.cwd = dir.path()}).json["count"],
            1);  // '.' is a character
}

TEST(GrepTool, HiddenFilesAndGitignoredFilesAreSkipped) {
  TempDir dir;
  Git(dir.path(), "init -q");
  WriteFile(dir / ".gitignore", "build/\n");
  WriteFile(dir / ".env", "SECRET=needle\n");
  MkDir(dir / "build");
  WriteFile(dir / "build/gen.c", "needle\n");
  WriteFile(dir / "main.c", "needle\n");
  EXPECT_EQ(Grep({{"pattern", "needle"}}, {.cwd = dir.path()}).json["output"], "main.c:1: needle");
  EXPECT_EQ(Grep({{"pattern", "needle"}, {"no_ignore", true}}, {.cwd = dir.path()}).json["count"],
            2);
}

TEST(GrepTool, EmptyResultSaysIgnoredFilesWereSkipped) {
  TempDir dir;
  Git(dir.path(), "init -q");
  WriteFile(dir / ".gitignore", "*.log\n");
  WriteFile(dir / "app.log", "needle\n");
  ToolRun run = Grep({{"pattern", "needle"}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["count"], 0);
  EXPECT_EQ(run.json["ignored_files"], 1);
  EXPECT_NE(run.json["hint"].get<std::string>().find("no_ignore"), std::string::npos);
}

TEST(GrepTool, GlobFiltersBaseNamesOrPaths) {
  TempDir dir;
  MkDir(dir / "src");
  MkDir(dir / "test");
  WriteFile(dir / "src/a.c", "x\n");
  WriteFile(dir / "src/a.h", "x\n");
  WriteFile(dir / "test/t.c", "x\n");
  EXPECT_EQ(Grep({{"pattern", "x"}, {"glob", "*.c"}, {"output_mode", "files_with_matches"}},
                 {.cwd = dir.path()})
                .json["output"],
            "src/a.c\ntest/t.c");
  EXPECT_EQ(Grep({{"pattern", "x"}, {"glob", "src/*.c"}, {"output_mode", "files_with_matches"}},
                 {.cwd = dir.path()})
                .json["output"],
            "src/a.c");
}

TEST(GrepTool, PathCanBeASingleFileOrMissing) {
  TempDir dir;
  WriteFile(dir / "one.txt", "alpha\nbeta\n");
  EXPECT_EQ(Grep({{"pattern", "beta"}, {"path", dir / "one.txt"}}).json["output"],
            dir / "one.txt:2: beta");
  ToolRun missing = Grep({{"pattern", "x"}, {"path", dir / "nope"}});
  EXPECT_EQ(missing.json["error_code"], "FILE_NOT_FOUND");
  EXPECT_NE(missing.json["error"].get<std::string>().find(dir / "nope"), std::string::npos);
}

TEST(GrepTool, SymlinkLoopsTerminate) {
  TempDir dir;
  MkDir(dir / "a");
  WriteFile(dir / "a/f.txt", "needle\n");
  ASSERT_EQ(::symlink("..", (dir / "a/up").c_str()), 0);
  ToolRun run =
      Grep({{"pattern", "needle"}}, {.cwd = dir.path(), .timeout = std::chrono::seconds(10)});
  EXPECT_EQ(run.json["output"], "a/f.txt:1: needle");
}

TEST(GrepTool, UnreadableDirectoriesAndFilesAreSkippedAsANonRootUser) {
  TempDir dir;
  MkDir(dir / "open");
  WriteFile(dir / "open/a.txt", "needle\n");
  WriteFile(dir / "open/secret.txt", "needle\n", 0600);
  ASSERT_EQ(::mkdir((dir / "closed").c_str(), 0700), 0);
  WriteFile(dir / "closed/b.txt", "needle\n");
  ToolRun run = Grep({{"pattern", "needle"}, {"path", dir.path()}}, {.as_user = kNobody});
  EXPECT_EQ(run.json["output"], dir / "open/a.txt:1: needle");
}

TEST(GrepTool, ManyMatchesStayInBudgetWithTheTotalCount) {
  TempDir dir;
  for (int f = 0; f < 30; ++f)
    WriteFile(dir / ("f" + std::to_string(f) + ".txt"), Lines(1, 2000, "match"));
  ToolRun run = Grep({{"pattern", "match"}}, {.cwd = dir.path()});
  EXPECT_LT(run.out.size(), 61u * 1024);
  EXPECT_EQ(run.json["count"], 60000);
  EXPECT_EQ(run.json["truncated"], true);
  EXPECT_TRUE(
      run.json["output"].get<std::string>().starts_with("f0.txt:1: match 1\nf0.txt:2: match 2\n"));
}

TEST(GrepTool, OutputIsTheSameOverRepeatedRuns) {
  TempDir dir;
  for (int d = 0; d < 20; ++d) {
    MkDir(dir / ("d" + std::to_string(d)));
    for (int f = 0; f < 40; ++f) {
      WriteFile(dir / ("d" + std::to_string(d) + "/f" + std::to_string(f) + ".txt"),
                Lines(1, 5, "needle"));
    }
  }
  const std::string first = Grep({{"pattern", "needle [24]"}}, {.cwd = dir.path()}).out;
  EXPECT_NE(first.find("d0/f0.txt:2: needle 2"), std::string::npos);
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(Grep({{"pattern", "needle [24]"}}, {.cwd = dir.path()}).out, first) << "run " << i;
  }
}

TEST(GrepTool, CatastrophicPatternIsLinear) {
  TempDir dir;
  WriteFile(dir / "a.txt", std::string(100000, 'a') + "\n");
  ToolRun run =
      Grep({{"pattern", "(a+)+$b"}}, {.cwd = dir.path(), .timeout = std::chrono::seconds(20)});
  EXPECT_EQ(run.json["count"], 0);
}

TEST(GrepTool, MalformedInputIsInvalidArg) {
  EXPECT_EQ(Grep(Json::object()).json["error_code"], "INVALID_ARG");
  EXPECT_EQ(Grep({{"pattern", "x"}, {"ignore_case", "yes"}}).json["error_code"], "INVALID_ARG");
  EXPECT_EQ(Grep({{"pattern", "x"}, {"context", 1000}}).json["error_code"], "INVALID_ARG");
}

}  // namespace
}  // namespace ikigai::testing
