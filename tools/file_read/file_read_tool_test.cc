// file-read-tool through its real executable: seeds/000 examples, edge cases
// and error codes, plus DECISIONS §4 (binary, directory, budget, next_offset).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

ToolRun Read(const Json& args, const RunOptions& options = {}) {
  ToolRun run = RunTool("file-read", args, options);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.json.is_discarded()) << run.out;
  return run;
}

TEST(FileReadTool, SchemaIsTheSeedsWithItsThreeParameters) {
  ToolRun run = RunExecutable(ToolPath("file-read"), "", {.argv_extra = {"--schema"}});
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_FALSE(run.json.is_discarded());
  EXPECT_EQ(run.json["name"], "file_read");
  EXPECT_TRUE(run.json["description"].get<std::string>().starts_with("Read contents of a file"));
  const Json& props = run.json["parameters"]["properties"];
  EXPECT_EQ(props["file_path"]["type"], "string");
  EXPECT_EQ(props["offset"]["type"], "integer");
  EXPECT_EQ(props["limit"]["type"], "integer");
  EXPECT_EQ(run.json["parameters"]["required"], Json::array({"file_path"}));
}

TEST(FileReadTool, ReadsWholeFileExactly) {
  TempDir dir;
  WriteFile(dir / "hostname", "myserver.example.com\n");
  ToolRun run = Read({{"file_path", dir / "hostname"}});
  EXPECT_EQ(run.out, R"({"output":"myserver.example.com\n"})");
}

TEST(FileReadTool, EmptyFileGivesEmptyOutput) {
  TempDir dir;
  WriteFile(dir / "empty", "");
  EXPECT_EQ(Read({{"file_path", dir / "empty"}}).out, R"({"output":""})");
}

TEST(FileReadTool, OffsetAndLimitSelectLines) {
  TempDir dir;
  WriteFile(dir / "f", "one\ntwo\nthree\nfour\nfive");
  EXPECT_EQ(Read({{"file_path", dir / "f"}, {"offset", 2}, {"limit", 2}}).json["output"],
            "two\nthree\n");
  // offset without limit: to the end, last line without newline kept as is.
  EXPECT_EQ(Read({{"file_path", dir / "f"}, {"offset", 4}}).json["output"], "four\nfive");
  // limit without offset: from the first line.
  EXPECT_EQ(Read({{"file_path", dir / "f"}, {"limit", 1}}).json["output"], "one\n");
}

TEST(FileReadTool, OffsetBeyondEndIsEmptyNotAnError) {
  TempDir dir;
  WriteFile(dir / "f", "a\nb\n");
  ToolRun run = Read({{"file_path", dir / "f"}, {"offset", 50}});
  EXPECT_EQ(run.out, R"({"output":""})");
}

TEST(FileReadTool, RejectsOffsetAndLimitBelowOne) {
  TempDir dir;
  WriteFile(dir / "f", "a\n");
  ToolRun run = Read({{"file_path", dir / "f"}, {"offset", 0}});
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  EXPECT_NE(run.json["error"].get<std::string>().find("'offset'"), std::string::npos);
  run = Read({{"file_path", dir / "f"}, {"limit", -3}});
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  EXPECT_NE(run.json["error"].get<std::string>().find("'limit'"), std::string::npos);
}

TEST(FileReadTool, MissingFileIsFileNotFoundWithNextStep) {
  ToolRun run = Read({{"file_path", "/path/to/missing.txt"}});
  EXPECT_EQ(run.json["error_code"], "FILE_NOT_FOUND");
  const std::string error = run.json["error"];
  EXPECT_TRUE(error.starts_with("File not found: /path/to/missing.txt")) << error;
  EXPECT_NE(error.find("glob"), std::string::npos) << error;
}

TEST(FileReadTool, PermissionDeniedForAnUnprivilegedUser) {
  TempDir dir;
  WriteFile(dir / "secret", "top secret\n", 0600);  // owned by root: the suite runs as root
  ASSERT_EQ(::geteuid(), 0u) << "the suite runs as root and drops privileges for this case";
  ToolRun run = Read({{"file_path", dir / "secret"}}, {.as_user = kNobody});
  EXPECT_EQ(run.json["error_code"], "PERMISSION_DENIED");
  EXPECT_TRUE(
      run.json["error"].get<std::string>().starts_with("Permission denied: " + dir / "secret"));
}

TEST(FileReadTool, DirectoryIsAnErrorWithAGlobHint) {
  TempDir dir;
  ToolRun run = Read({{"file_path", dir.path()}});
  EXPECT_EQ(run.json["error_code"], "IS_DIRECTORY");
  EXPECT_NE(run.json["error"].get<std::string>().find("glob"), std::string::npos);
}

TEST(FileReadTool, DevicesAndPipesAreRefusedWithSeedCodes) {
  ToolRun zero = Read({{"file_path", "/dev/zero"}});
  EXPECT_EQ(zero.json["error_code"], "SIZE_FAILED");
  EXPECT_TRUE(zero.json["error"].get<std::string>().starts_with("Cannot get file size: /dev/zero"));

  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  ToolRun fifo = Read({{"file_path", dir / "fifo"}});  // must not block waiting for a writer
  EXPECT_EQ(fifo.json["error_code"], "SEEK_FAILED");
  EXPECT_TRUE(
      fifo.json["error"].get<std::string>().starts_with("Cannot seek file: " + dir / "fifo"));
}

TEST(FileReadTool, BinaryFileIsRefusedWithSizeAndHint) {
  TempDir dir;
  std::string data = "ELF";
  data += std::string(1, '\0');
  data += std::string(100, 'x');
  WriteFile(dir / "bin", data);
  ToolRun run = Read({{"file_path", dir / "bin"}});
  EXPECT_EQ(run.json["error_code"], "BINARY_FILE");
  EXPECT_EQ(run.json["size"], data.size());
  EXPECT_NE(run.json["error"].get<std::string>().find("xxd"), std::string::npos);
}

TEST(FileReadTool, NulAfterTheFirst8KBIsReadAsText) {
  TempDir dir;
  std::string data(9000, 'a');
  data += '\0';
  data += "z\n";
  WriteFile(dir / "late-nul", data);
  ToolRun run = Read({{"file_path", dir / "late-nul"}});
  EXPECT_EQ(run.json["output"], data);
}

TEST(FileReadTool, SymbolicLinkIsFollowed) {
  TempDir dir;
  WriteFile(dir / "target", "through the link\n");
  ASSERT_EQ(::symlink((dir / "target").c_str(), (dir / "link").c_str()), 0);
  EXPECT_EQ(Read({{"file_path", dir / "link"}}).json["output"], "through the link\n");
}

TEST(FileReadTool, RelativePathResolvesAgainstWorkingDirectory) {
  TempDir dir;
  WriteFile(dir / "rel.txt", "relative\n");
  EXPECT_EQ(Read({{"file_path", "rel.txt"}}, {.cwd = dir.path()}).json["output"], "relative\n");
}

TEST(FileReadTool, UnicodeTabsAndCrlfArePreserved) {
  TempDir dir;
  const std::string text = "h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80\r\n\tindented\r\nlast";
  WriteFile(dir / "u", text);
  ToolRun run = Read({{"file_path", dir / "u"}});
  EXPECT_EQ(run.json["output"], text);
  EXPECT_EQ(Read({{"file_path", dir / "u"}, {"offset", 2}, {"limit", 1}}).json["output"],
            "\tindented\r\n");
}

TEST(FileReadTool, InvalidUtf8BecomesReplacementCharacter) {
  TempDir dir;
  WriteFile(dir / "bad", "ok \xFF\xFE end\n");
  ToolRun run = Read({{"file_path", dir / "bad"}});
  ASSERT_FALSE(run.json.is_discarded()) << "output must be valid JSON: " << run.out;
  EXPECT_EQ(run.json["output"], "ok \xEF\xBF\xBD\xEF\xBF\xBD end\n");
}

TEST(FileReadTool, LargeFileIsCutAtALineBoundaryWithNextOffset) {
  TempDir dir;
  std::string text;
  for (int i = 1; i <= 50000; ++i) text += "line " + std::to_string(i) + "\n";
  WriteFile(dir / "big", text);
  ToolRun run = Read({{"file_path", dir / "big"}});
  EXPECT_LT(run.out.size(), 60u * 1024);
  EXPECT_EQ(run.json["truncated"], true);
  const std::string output = run.json["output"];
  ASSERT_EQ(output.back(), '\n');
  const std::int64_t next = run.json["next_offset"];
  // next_offset continues exactly after the last whole line returned.
  EXPECT_TRUE(output.ends_with("line " + std::to_string(next - 1) + "\n")) << next;
  ToolRun rest = Read({{"file_path", dir / "big"}, {"offset", next}, {"limit", 1}});
  EXPECT_EQ(rest.json["output"], "line " + std::to_string(next) + "\n");
}

TEST(FileReadTool, ControlCharactersCountAtTheirEscapedSize) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 4000; ++i) text += std::string(20, '\x01') + "\n";  // 6 bytes each in JSON
  WriteFile(dir / "ctl", text);
  ToolRun run = Read({{"file_path", dir / "ctl"}});
  EXPECT_LT(run.out.size(), 61u * 1024);
  EXPECT_EQ(run.json["truncated"], true);
}

TEST(FileReadTool, SingleHugeLineIsCutInsideAtACharacterBoundary) {
  TempDir dir;
  std::string line;
  for (int i = 0; i < 100000; ++i) line += "\xC3\xA9";  // 200 KB of 'é', no newline
  WriteFile(dir / "minified", line + "\nsecond\n");
  ToolRun run = Read({{"file_path", dir / "minified"}});
  ASSERT_FALSE(run.json.is_discarded()) << "a cut must not split a character";
  EXPECT_LT(run.out.size(), 60u * 1024);
  EXPECT_EQ(run.json["truncated"], true);
  EXPECT_EQ(run.json["next_offset"], 2);
  EXPECT_EQ(Read({{"file_path", dir / "minified"}, {"offset", 2}}).json["output"], "second\n");
}

// Peak memory of one small read: AddressSanitizer's shadow and quarantine
// add a fixed few megabytes; either bound is far below the 1 GB file.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kSmallReadKb = 48 * 1024;
#else
constexpr long kSmallReadKb = 16 * 1024;
#endif

// A 1 GB sparse file: text at the start (so it is not binary), text deep
// inside, holes (NULs) between. Reading deep lines must not load the file.
TEST(FileReadTool, SparseGigabyteFileReadDeepInsideInSmallMemory) {
  TempDir dir;
  const std::string path = dir / "sparse";
  std::string head;
  for (int i = 1; i <= 2000; ++i) head += "head line " + std::to_string(i) + "\n";
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  const std::string deep = "\ndeep line A\ndeep line B\n";
  const off_t deep_at = 900LL * 1024 * 1024;
  ASSERT_EQ(::pwrite(fd, deep.data(), deep.size(), deep_at), static_cast<ssize_t>(deep.size()));
  ASSERT_EQ(::ftruncate(fd, 1024LL * 1024 * 1024), 0);
  ::close(fd);

  // Line 2001 is 900 MB of NULs; 2002 and 2003 are the deep lines.
  ToolRun run = Read({{"file_path", path}, {"offset", 2002}, {"limit", 2}});
  EXPECT_EQ(run.json["output"], "deep line A\ndeep line B\n");
  EXPECT_LT(run.max_rss_kb, kSmallReadKb) << "peak memory must stay small";

  ToolRun nul_line = Read({{"file_path", path}, {"offset", 2001}, {"limit", 1}});
  EXPECT_EQ(nul_line.json["truncated"], true);
  EXPECT_EQ(nul_line.json["next_offset"], 2002);
  EXPECT_LT(nul_line.out.size(), 61u * 1024);
  EXPECT_LT(nul_line.max_rss_kb, kSmallReadKb);
}

TEST(FileReadTool, MalformedInputIsInvalidArgNamingTheParameter) {
  ToolRun run = RunToolRaw("file-read", "not json");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  run = RunTool("file-read", Json::object());
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  EXPECT_NE(run.json["error"].get<std::string>().find("'file_path'"), std::string::npos);
  run = RunTool("file-read", {{"file_path", "/etc/hostname"}, {"offset", "ten"}});
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  EXPECT_NE(run.json["error"].get<std::string>().find("'offset'"), std::string::npos);
}

}  // namespace
}  // namespace ikigai::testing
