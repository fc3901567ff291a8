// file-edit-tool end to end: the real executable, real files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "base/utf8.h"
#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

Json Args(const std::string& path, const std::string& old_string, const std::string& new_string) {
  return Json{{"file_path", path}, {"old_string", old_string}, {"new_string", new_string}};
}

// Runs the tool and checks the protocol: exit 0, one JSON object, valid UTF-8.
Json Edit(const Json& args, const RunOptions& options = {}) {
  const ToolRun run = RunTool("file-edit", args, options);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.json.is_object()) << run.out;
  EXPECT_TRUE(utf8::IsValid(run.out));
  return run.json;
}

bool StartsWith(const Json& field, const std::string& prefix) {
  return field.is_string() && field.get<std::string>().rfind(prefix, 0) == 0;
}

mode_t Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

TEST(FileEditTool, SchemaIsTheSeedsWithAnnotations) {
  const ToolRun run = RunExecutable(ToolPath("file-edit"), "", {.argv_extra = {"--schema"}});
  ASSERT_EQ(run.exit_code, 0);
  const Json& s = run.json;
  EXPECT_EQ(s["name"], "file_edit");
  EXPECT_TRUE(StartsWith(s["description"],
                         "Edit a file by replacing exact text matches. You must read the file "
                         "before editing."));
  EXPECT_NE(s["description"].get<std::string>().find("Returns: {output, replacements, match?}"),
            std::string::npos);
  EXPECT_EQ(s["parameters"]["required"], Json::parse(R"(["file_path","old_string","new_string"])"));
  EXPECT_EQ(s["parameters"]["properties"]["replace_all"]["type"], "boolean");
  EXPECT_EQ(s["parameters"]["properties"]["old_string"]["description"],
            "Exact text to find and replace");
  EXPECT_EQ(s["annotations"]["readOnlyHint"], false);
  EXPECT_EQ(s["annotations"]["destructiveHint"], true);
}

TEST(FileEditTool, SeedExample) {
  TempDir dir;
  const std::string path = dir / "config.txt";
  WriteFile(path, "name = demo\ndebug = false\nport = 80\n");
  const Json out = Edit(Args(path, "debug = false", "debug = true"));
  EXPECT_EQ(out, Json::parse(R"({"output": "Replaced 1 occurrence in config.txt",
                                 "replacements": 1})"));
  EXPECT_EQ(ReadFile(path), "name = demo\ndebug = true\nport = 80\n");
}

TEST(FileEditTool, SeveralMatchesAreNotUniqueWithTheirLines) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  const std::string content = "a\nb\nx = 1\nc\nd\ne\nf\nx = 1\ng\nh\ni\nx = 1\n";
  WriteFile(path, content);
  const Json out = Edit(Args(path, "x = 1", "x = 2"));
  EXPECT_EQ(out["error_code"], "NOT_UNIQUE");
  EXPECT_TRUE(StartsWith(out["error"], "String found 3 times, use replace_all to replace all"))
      << out.dump();
  EXPECT_NE(out["error"].get<std::string>().find("3, 8, 12"), std::string::npos);
  EXPECT_EQ(out["lines"], Json::parse("[3, 8, 12]"));
  EXPECT_EQ(ReadFile(path), content);
}

TEST(FileEditTool, MatchesSharingALineNameItOnce) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "x x x\nnothing\nx\n");
  const Json out = Edit(Args(path, "x", "y"));
  EXPECT_EQ(out["error_code"], "NOT_UNIQUE");
  const std::string error = out["error"];
  EXPECT_TRUE(StartsWith(error, "String found 4 times")) << error;
  EXPECT_NE(error.find("on lines 1, 3;"), std::string::npos) << error;
  EXPECT_EQ(out["lines"], Json::parse("[1, 3]"));
  EXPECT_EQ(out["matches"], 4);
  WriteFile(path, "x x x\n");
  const std::string one = Edit(Args(path, "x", "y"))["error"];
  EXPECT_NE(one.find("all on line 1;"), std::string::npos) << one;
}

// file_edit reads the file whole: a huge one is refused, saying what to use.
TEST(FileEditTool, AFileAboveTheCapIsRefusedWithWhatToDo) {
  TempDir dir;
  const std::string path = dir / "huge.log";
  WriteFile(path, "start\n");
  ASSERT_EQ(::truncate(path.c_str(), (16 << 20) + 1), 0);  // sparse: costs no disk
  const Json out = Edit(Args(path, "start", "begin"));
  EXPECT_EQ(out["error_code"], "FILE_TOO_LARGE") << out.dump();
  const std::string error = out["error"];
  EXPECT_NE(error.find("16 MiB"), std::string::npos) << error;
  EXPECT_NE(error.find("sed -i"), std::string::npos) << error;
  EXPECT_EQ(out["size"], (16 << 20) + 1);
}

TEST(FileEditTool, ReplaceAllReplacesEveryOccurrence) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "x = 1\ny\nx = 1\nx = 1\n");
  Json args = Args(path, "x = 1", "x = 2");
  args["replace_all"] = true;
  const Json out = Edit(args);
  EXPECT_EQ(out["output"], "Replaced 3 occurrences in f.txt");
  EXPECT_EQ(out["replacements"], 3);
  EXPECT_FALSE(out.contains("match"));
  EXPECT_EQ(ReadFile(path), "x = 2\ny\nx = 2\nx = 2\n");
}

TEST(FileEditTool, ReplaceAllWithoutMatchesSucceedsAndLeavesTheFile) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "keep\n", 0600);
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  Json args = Args(path, "absent", "x");
  args["replace_all"] = true;
  const Json out = Edit(args);
  EXPECT_EQ(out["output"], "Replaced 0 occurrences in f.txt");
  EXPECT_EQ(out["replacements"], 0);
  EXPECT_FALSE(out.contains("error"));
  EXPECT_EQ(ReadFile(path), "keep\n");
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "nothing to write: the file is not replaced";
}

TEST(FileEditTool, NotFoundShowsTheNearestLines) {
  TempDir dir;
  const std::string path = dir / "config.txt";
  WriteFile(path, "name = demo\nport = 80\n\tdebug = true\nverbose = no\n");
  const Json out = Edit(Args(path, "debug = false", "debug = on"));
  EXPECT_EQ(out["error_code"], "NOT_FOUND");
  EXPECT_TRUE(StartsWith(out["error"], "String not found in file")) << out.dump();
  EXPECT_NE(out["error"].get<std::string>().find("line 3"), std::string::npos);
  EXPECT_NE(out["error"].get<std::string>().find("file_read"), std::string::npos);
  ASSERT_TRUE(out["candidates"].is_array());
  ASSERT_GE(out["candidates"].size(), 1u);
  EXPECT_LE(out["candidates"].size(), 3u);
  EXPECT_EQ(out["candidates"][0], Json::parse(R"({"line": 3, "text": "\tdebug = true"})"));
}

TEST(FileEditTool, NotFoundIsFastOnALargeFile) {
  TempDir dir;
  const std::string path = dir / "big.txt";
  std::string content;
  for (int i = 0; i < 100000; ++i) content += "    value_" + std::to_string(i) + " = f(x);\n";
  WriteFile(path, content);
  const ToolRun run = RunTool("file-edit", Args(path, "value_4242 = g(x);\nmore", "y"));
  EXPECT_EQ(run.json["error_code"], "NOT_FOUND");
  EXPECT_EQ(run.json["candidates"][0]["line"], 4243);
  EXPECT_LT(run.seconds, 3.0);
}

TEST(FileEditTool, EmptyOldStringIsInvalid) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "abc");
  const Json out = Edit(Args(path, "", "x"));
  EXPECT_EQ(out["error_code"], "INVALID_ARG");
  EXPECT_TRUE(StartsWith(out["error"], "old_string cannot be empty"));
  EXPECT_EQ(ReadFile(path), "abc");
}

TEST(FileEditTool, IdenticalStringsAreInvalidEvenForAMissingFile) {
  TempDir dir;
  const Json out = Edit(Args(dir / "missing.txt", "same", "same"));
  EXPECT_EQ(out["error_code"], "INVALID_ARG");
  EXPECT_TRUE(StartsWith(out["error"], "old_string and new_string are identical"));
}

TEST(FileEditTool, EmptyNewStringDeletes) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "keep\ndrop me\nkeep too\n");
  const Json out = Edit(Args(path, "drop me\n", ""));
  EXPECT_EQ(out["replacements"], 1);
  EXPECT_EQ(ReadFile(path), "keep\nkeep too\n");
}

TEST(FileEditTool, MissingFileIsFileNotFound) {
  TempDir dir;
  const std::string path = dir / "missing.txt";
  const Json out = Edit(Args(path, "a", "b"));
  EXPECT_EQ(out["error_code"], "FILE_NOT_FOUND");
  EXPECT_TRUE(StartsWith(out["error"], "File not found: " + path)) << out.dump();
  EXPECT_EQ(ListDir(dir.path()).size(), 0u) << "no file is created";
}

TEST(FileEditTool, DirectoryIsRefusedWithAHint) {
  TempDir dir;
  const Json out = Edit(Args(dir.path(), "a", "b"));
  EXPECT_EQ(out["error_code"], "IS_DIRECTORY");
  EXPECT_NE(out["error"].get<std::string>().find("glob"), std::string::npos);
}

TEST(FileEditTool, FifoIsRefusedWithoutBlocking) {
  TempDir dir;
  const std::string path = dir / "pipe";
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  const ToolRun run =
      RunTool("file-edit", Args(path, "a", "b"), {.timeout = std::chrono::seconds(10)});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.json["error_code"], "OPEN_FAILED");
  EXPECT_NE(run.json["error"].get<std::string>().find("not a regular file"), std::string::npos);
}

TEST(FileEditTool, UnreadableFileIsPermissionDenied) {
  ASSERT_EQ(::geteuid(), 0u) << "the suite runs as root so that it can drop to nobody";
  TempDir dir;
  const std::string path = dir / "secret.txt";
  WriteFile(path, "token = 1\n", 0600);  // owned by root
  const Json out = Edit(Args(path, "token = 1", "token = 2"), {.as_user = kNobody});
  EXPECT_EQ(out["error_code"], "PERMISSION_DENIED") << out.dump();
  EXPECT_TRUE(StartsWith(out["error"], "Permission denied: " + path));
  EXPECT_EQ(ReadFile(path), "token = 1\n");
}

TEST(FileEditTool, ReadOnlyFileIsPermissionDenied) {
  ASSERT_EQ(::geteuid(), 0u);
  TempDir dir;
  const std::string path = dir / "shared.txt";
  WriteFile(path, "token = 1\n", 0644);  // nobody may read it, not write it
  const Json out = Edit(Args(path, "token = 1", "token = 2"), {.as_user = kNobody});
  EXPECT_EQ(out["error_code"], "PERMISSION_DENIED") << out.dump();
  EXPECT_TRUE(StartsWith(out["error"], "Permission denied: " + path));
  EXPECT_EQ(ReadFile(path), "token = 1\n");
  EXPECT_EQ(ListDir(dir.path()), std::vector<std::string>{"shared.txt"});
}

TEST(FileEditTool, RefusedWriteUnderTheSandboxIsSandboxDenied) {
  ASSERT_EQ(::geteuid(), 0u);
  TempDir dir;
  const std::string path = dir / "shared.txt";
  WriteFile(path, "token = 1\n", 0644);
  const std::string sandbox = R"({"tier":1,"writable_roots":["/work/ws"],"network":false})";
  const Json out = Edit(Args(path, "token = 1", "token = 2"),
                        {.env = {{"IKIGAI_SANDBOX", sandbox}}, .as_user = kNobody});
  EXPECT_EQ(out["error_code"], "SANDBOX_DENIED") << out.dump();
  EXPECT_NE(out["error"].get<std::string>().find("/work/ws"), std::string::npos) << out.dump();
  EXPECT_EQ(ReadFile(path), "token = 1\n");
}

TEST(FileEditTool, ModeBitsAreKept) {
  TempDir dir;
  for (const int mode : {0640, 0755}) {
    const std::string path = dir / std::to_string(mode);  // "m" + ... trips GCC 12 -Wrestrict
    WriteFile(path, "before\n", mode);
    EXPECT_EQ(Edit(Args(path, "before", "after"))["replacements"], 1);
    EXPECT_EQ(ReadFile(path), "after\n");
    EXPECT_EQ(Mode(path), static_cast<mode_t>(mode));
  }
}

TEST(FileEditTool, OwnerIsKept) {
  ASSERT_EQ(::geteuid(), 0u);
  TempDir dir;
  const std::string path = dir / "owned.txt";
  WriteFile(path, "before\n");
  ASSERT_EQ(::chown(path.c_str(), kNobody, kNobody), 0);
  EXPECT_EQ(Edit(Args(path, "before", "after"))["replacements"], 1);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kNobody);
  EXPECT_EQ(st.st_gid, kNobody);
}

TEST(FileEditTool, NoTemporaryFileIsLeft) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "one\ntwo\n");
  EXPECT_EQ(Edit(Args(path, "two", "three"))["replacements"], 1);
  EXPECT_EQ(Edit(Args(path, "absent", "x"))["error_code"], "NOT_FOUND");
  EXPECT_EQ(ListDir(dir.path()), std::vector<std::string>{"f.txt"});
}

TEST(FileEditTool, SymlinkIsEditedThrough) {
  TempDir dir;
  const std::string target = dir / "target.txt";
  const std::string link = dir / "link.txt";
  WriteFile(target, "value = 1\n");
  ASSERT_EQ(::symlink("target.txt", link.c_str()), 0);
  const Json out = Edit(Args(link, "value = 1", "value = 2"));
  EXPECT_EQ(out["output"], "Replaced 1 occurrence in link.txt");
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(ReadFile(target), "value = 2\n");
  auto names = ListDir(dir.path());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"link.txt", "target.txt"}));
}

TEST(FileEditTool, CrlfFileStaysCrlf) {
  TempDir dir;
  const std::string path = dir / "win.txt";
  WriteFile(path, "[a]\r\nx = 1\r\n[b]\r\n");
  const Json out = Edit(Args(path, "x = 1", "x = 1\ny = 2\nz = 3"));
  EXPECT_EQ(out["replacements"], 1);
  EXPECT_FALSE(out.contains("match"));
  EXPECT_EQ(ReadFile(path), "[a]\r\nx = 1\r\ny = 2\r\nz = 3\r\n[b]\r\n");
}

TEST(FileEditTool, TabIndentedFileEditedWithSpaces) {
  TempDir dir;
  const std::string path = dir / "main.c";
  WriteFile(path,
            "int main(void) {\n"
            "\tif (ready) {\n"
            "\t\tstart();\n"
            "\t}\n"
            "\treturn 0;\n"
            "}\n");
  const Json out = Edit(Args(path,
                             "    if (ready) {\n"
                             "        start();\n"
                             "    }\n",
                             "    if (ready) {\n"
                             "        start();\n"
                             "        if (verbose) {\n"
                             "            log(\"started\");\n"
                             "        }\n"
                             "    }\n"));
  EXPECT_EQ(out["output"], "Replaced 1 occurrence in main.c");
  EXPECT_EQ(out["replacements"], 1);
  EXPECT_EQ(out["match"], "whitespace-normalized");
  EXPECT_EQ(ReadFile(path),
            "int main(void) {\n"
            "\tif (ready) {\n"
            "\t\tstart();\n"
            "\t\tif (verbose) {\n"
            "\t\t\tlog(\"started\");\n"
            "\t\t}\n"
            "\t}\n"
            "\treturn 0;\n"
            "}\n");
}

TEST(FileEditTool, TrailingSpacesInTheFileAreTolerated) {
  TempDir dir;
  const std::string path = dir / "f.py";
  WriteFile(path, "def f():  \n    return 1 \n\nprint(f())\n");
  const Json out = Edit(Args(path, "def f():\n    return 1\n", "def f():\n    return 2\n"));
  EXPECT_EQ(out["match"], "whitespace-normalized");
  EXPECT_EQ(ReadFile(path), "def f():\n    return 2\n\nprint(f())\n");
}

TEST(FileEditTool, CrlfOldStringMatchesAnLfFile) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "a\nb\nc\n");
  const Json out = Edit(Args(path, "a\r\nb\r\n", "A\r\nB\r\n"));
  EXPECT_EQ(out["match"], "whitespace-normalized");
  EXPECT_EQ(ReadFile(path), "A\nB\nc\n");
}

TEST(FileEditTool, LfOldStringMatchesACrlfFile) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "a\r\nb\r\nc\r\n");
  const Json out = Edit(Args(path, "a\nb", "A\nB"));
  EXPECT_EQ(out["match"], "whitespace-normalized");
  EXPECT_EQ(ReadFile(path), "A\r\nB\r\nc\r\n");
}

TEST(FileEditTool, AmbiguousNormalizedMatchIsNotUnique) {
  TempDir dir;
  const std::string path = dir / "f.c";
  const std::string content = "void f() {\n\tcall();\n}\nvoid g() {\n\tcall();\n}\n";
  WriteFile(path, content);
  const Json out = Edit(Args(path, "    call();", "    other();"));
  EXPECT_EQ(out["error_code"], "NOT_UNIQUE");
  EXPECT_TRUE(StartsWith(out["error"], "String found 2 times"));
  EXPECT_EQ(out["lines"], Json::parse("[2, 5]"));
  EXPECT_EQ(ReadFile(path), content);
}

TEST(FileEditTool, UnicodeContent) {
  TempDir dir;
  const std::string path = dir / "i18n.txt";
  WriteFile(path, "greeting = \"héllo wörld\"\nemoji = \"🎉\"\n");
  const Json out = Edit(Args(path, "\"🎉\"", "\"🚀 日本語\""));
  EXPECT_EQ(out["replacements"], 1);
  EXPECT_EQ(ReadFile(path), "greeting = \"héllo wörld\"\nemoji = \"🚀 日本語\"\n");
}

TEST(FileEditTool, InvalidUtf8SurvivesAndAnswersStayValid) {
  TempDir dir;
  const std::string path = dir / "latin1.txt";
  const std::string content = "caf\xE9 = 1\nname = Jos\xE9\xFF\n";
  WriteFile(path, content);
  EXPECT_EQ(Edit(Args(path, "= 1", "= 2"))["replacements"], 1);
  EXPECT_EQ(ReadFile(path), "caf\xE9 = 2\nname = Jos\xE9\xFF\n");
  // A candidate line holding invalid bytes is repaired in the answer.
  const Json out = Edit(Args(path, "name = Jose", "name = X"));
  EXPECT_EQ(out["error_code"], "NOT_FOUND");
  ASSERT_GE(out["candidates"].size(), 1u);
  EXPECT_EQ(out["candidates"][0]["line"], 2);
  EXPECT_EQ(out["candidates"][0]["text"], "name = Jos\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(FileEditTool, BinaryBytesAreEdited) {
  TempDir dir;
  const std::string path = dir / "blob.bin";
  const std::string content(
      "\x7F"
      "ELF\0\0\x01\x02"
      "marker\0\xFF\xFE",
      17);
  WriteFile(path, content);
  const Json out = Edit(Args(path, std::string("marker\0", 7), std::string("MARK\0\0\0", 7)));
  EXPECT_EQ(out["replacements"], 1);
  EXPECT_EQ(ReadFile(path), std::string("\x7F"
                                        "ELF\0\0\x01\x02"
                                        "MARK\0\0\0\xFF\xFE",
                                        17));
}

TEST(FileEditTool, RelativePathResolvesAgainstTheWorkingDirectory) {
  TempDir dir;
  ASSERT_EQ(::mkdir((dir / "sub").c_str(), 0755), 0);
  WriteFile(dir / "sub/f.txt", "old\n");
  const Json out = Edit(Args("sub/f.txt", "old", "new"), {.cwd = dir.path()});
  EXPECT_EQ(out["output"], "Replaced 1 occurrence in f.txt");
  EXPECT_EQ(ReadFile(dir / "sub/f.txt"), "new\n");
}

TEST(FileEditTool, InputErrorsNameTheParameter) {
  TempDir dir;
  const std::string path = dir / "f.txt";
  WriteFile(path, "a\n");
  Json missing = Json{{"old_string", "a"}, {"new_string", "b"}};
  Json out = Edit(missing);
  EXPECT_EQ(out["error_code"], "INVALID_ARG");
  EXPECT_NE(out["error"].get<std::string>().find("'file_path'"), std::string::npos);

  Json wrong_type = Args(path, "a", "b");
  wrong_type["replace_all"] = "yes";
  out = Edit(wrong_type);
  EXPECT_EQ(out["error_code"], "INVALID_ARG");
  EXPECT_NE(out["error"].get<std::string>().find("'replace_all'"), std::string::npos);

  const ToolRun run = RunToolRaw("file-edit", "not json");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  EXPECT_EQ(ReadFile(path), "a\n");
}

// Edits of one file through two of its hard links, all at once, as two
// agents (or two calls the host could not tell apart) would make them. The
// file is rewritten in place (it has two links), and two edits of the same
// size within one tick of the file system's clock look alike to a stamp:
// only the lock keeps them apart. Every edit answered ok is in the file.
TEST(FileEditTool, ConcurrentEditsThroughHardLinksAreNeverLost) {
  TempDir dir;
  constexpr int kEdits = 8;
  std::string text;
  for (int i = 0; i < kEdits; ++i) text += "line " + std::to_string(i) + "\n";
  WriteFile(dir / "h0", text);
  ASSERT_EQ(::link((dir / "h0").c_str(), (dir / "h1").c_str()), 0);
  for (int round = 0; round < 3; ++round) {
    WriteFile(dir / "h0", text);
    std::vector<std::thread> editors;
    std::vector<Json> answers(kEdits);
    for (int i = 0; i < kEdits; ++i) {
      editors.emplace_back([&, i] {
        answers[i] = Edit(Args(dir / ("h" + std::to_string(i % 2)), "line " + std::to_string(i),
                               "edit " + std::to_string(i)));
      });
    }
    for (auto& editor : editors) editor.join();
    const std::string after = ReadFile(dir / "h1");
    for (int i = 0; i < kEdits; ++i) {
      EXPECT_EQ(answers[i]["replacements"], 1) << answers[i].dump();
      EXPECT_NE(after.find("edit " + std::to_string(i) + "\n"), std::string::npos)
          << "edit " << i << " answered ok but is lost:\n"
          << after;
    }
  }
}

}  // namespace
}  // namespace ikigai::testing
