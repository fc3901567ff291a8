// file-write-tool through its real executable: seeds/000 examples, edge cases
// and error codes, plus DECISIONS §4 (atomic, mode kept, symlinks, created).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

ToolRun Write(const Json& args, const RunOptions& options = {}) {
  ToolRun run = RunTool("file-write", args, options);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.json.is_discarded()) << run.out;
  return run;
}

int Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(FileWriteTool, SchemaIsTheSeeds) {
  ToolRun run = RunExecutable(ToolPath("file-write"), "", {.argv_extra = {"--schema"}});
  ASSERT_FALSE(run.json.is_discarded());
  EXPECT_EQ(run.json["name"], "file_write");
  EXPECT_EQ(run.json["parameters"]["required"], Json::array({"file_path", "content"}));
  EXPECT_EQ(run.json["parameters"]["properties"]["content"]["type"], "string");
}

TEST(FileWriteTool, SeedExampleCreatesFile) {
  TempDir dir;
  ToolRun run = Write({{"file_path", dir / "test.txt"}, {"content", "Hello, world!\n"}});
  EXPECT_EQ(run.out, R"({"output":"Wrote 14 bytes to test.txt","bytes":14,"created":true})");
  EXPECT_EQ(ReadFile(dir / "test.txt"), "Hello, world!\n");
}

TEST(FileWriteTool, EmptyContentCreatesEmptyFile) {
  TempDir dir;
  ToolRun run = Write({{"file_path", dir / "empty.txt"}, {"content", ""}});
  EXPECT_EQ(run.json["output"], "Wrote 0 bytes to empty.txt");
  EXPECT_EQ(run.json["bytes"], 0);
  EXPECT_EQ(ReadFile(dir / "empty.txt"), "");
}

TEST(FileWriteTool, OverwritesExistingFileAndSaysNotCreated) {
  TempDir dir;
  WriteFile(dir / "f", "a much longer old content\n");
  ToolRun run = Write({{"file_path", dir / "f"}, {"content", "new"}});
  EXPECT_EQ(run.json["created"], false);
  EXPECT_EQ(ReadFile(dir / "f"), "new");
}

TEST(FileWriteTool, NewFileGetsDefaultModeFromUmask) {
  TempDir dir;
  Write({{"file_path", dir / "f"}, {"content", "x"}}, {.env = {}});
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(Mode(dir / "f"), 0666 & ~static_cast<int>(mask));
}

TEST(FileWriteTool, ExistingFileKeepsItsModeBits) {
  TempDir dir;
  WriteFile(dir / "script.sh", "#!/bin/sh\n", 0750);
  WriteFile(dir / "private", "old", 0600);
  Write({{"file_path", dir / "script.sh"}, {"content", "#!/bin/sh\necho hi\n"}});
  Write({{"file_path", dir / "private"}, {"content", "new"}});
  EXPECT_EQ(Mode(dir / "script.sh"), 0750);
  EXPECT_EQ(Mode(dir / "private"), 0600);
}

TEST(FileWriteTool, SymlinkIsWrittenThroughToItsTarget) {
  TempDir dir;
  ::mkdir((dir / "real").c_str(), 0755);
  WriteFile(dir / "real/config", "old", 0640);
  ASSERT_EQ(::symlink("real/config", (dir / "link").c_str()), 0);
  ToolRun run = Write({{"file_path", dir / "link"}, {"content", "via link"}});
  EXPECT_EQ(run.json["output"], "Wrote 8 bytes to link");
  EXPECT_EQ(run.json["created"], false);
  struct stat st {};
  ASSERT_EQ(::lstat((dir / "link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link must stay a link";
  EXPECT_EQ(ReadFile(dir / "real/config"), "via link");
  EXPECT_EQ(Mode(dir / "real/config"), 0640);
}

TEST(FileWriteTool, DanglingSymlinkCreatesItsTarget) {
  TempDir dir;
  ASSERT_EQ(::symlink((dir / "target").c_str(), (dir / "link").c_str()), 0);
  ToolRun run = Write({{"file_path", dir / "link"}, {"content", "made"}});
  EXPECT_EQ(run.json["created"], true);
  EXPECT_EQ(ReadFile(dir / "target"), "made");
}

TEST(FileWriteTool, NoTemporaryFileIsLeftBehind) {
  TempDir dir;
  Write({{"file_path", dir / "a"}, {"content", "1"}});
  Write({{"file_path", dir / "a"}, {"content", "2"}});
  EXPECT_EQ(ListDir(dir.path()), std::vector<std::string>{"a"});
}

// Killed while it writes (SIGKILL: no chance to clean up), the tool leaves
// no temporary file: it writes an unnamed one (O_TMPFILE) and names it only
// for the rename. The old file stays whole or the new one is complete.
TEST(FileWriteTool, KilledWhileWritingItLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string target = dir / "big";
  WriteFile(target, "old");
  const std::string content(12 << 20, 'x');
  const std::string input = Json{{"file_path", target}, {"content", content}}.dump();
  const std::string tool = ToolPath("file-write");
  for (int delay_ms : {0, 2, 5, 10, 20, 40}) {
    int in[2];
    ASSERT_EQ(::pipe(in), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::dup2(in[0], 0);
      ::close(in[0]);
      ::close(in[1]);
      ::execl(tool.c_str(), tool.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    for (std::size_t done = 0; done < input.size();) {
      const ssize_t n = ::write(in[1], input.data() + done, input.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(in[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    EXPECT_EQ(ListDir(dir.path()), std::vector<std::string>{"big"})
        << "after " << delay_ms << " ms";
    const std::string now = ReadFile(target);
    EXPECT_TRUE(now == "old" || now == content) << "a mix after " << delay_ms << " ms";
  }
}

TEST(FileWriteTool, MissingParentDirectoryIsOpenFailedWithMkdirHint) {
  ToolRun run = Write({{"file_path", "/nonexistent/dir/file.txt"}, {"content", "x"}});
  EXPECT_EQ(run.json["error_code"], "OPEN_FAILED");
  const std::string error = run.json["error"];
  EXPECT_TRUE(error.starts_with("Cannot open file: /nonexistent/dir/file.txt")) << error;
  EXPECT_NE(error.find("mkdir -p"), std::string::npos) << error;
}

TEST(FileWriteTool, DirectoryAsTargetIsOpenFailed) {
  TempDir dir;
  ToolRun run = Write({{"file_path", dir.path()}, {"content", "x"}});
  EXPECT_EQ(run.json["error_code"], "OPEN_FAILED");
  EXPECT_NE(run.json["error"].get<std::string>().find("directory"), std::string::npos);
}

TEST(FileWriteTool, PermissionDeniedInUnwritableDirectory) {
  TempDir dir;  // owned by root, 0755: nobody cannot create files in it
  ToolRun run = Write({{"file_path", dir / "new.txt"}, {"content", "x"}}, {.as_user = kNobody});
  EXPECT_EQ(run.json["error_code"], "PERMISSION_DENIED");
  EXPECT_TRUE(
      run.json["error"].get<std::string>().starts_with("Permission denied: " + dir / "new.txt"));
  EXPECT_TRUE(ListDir(dir.path()).empty());
}

// Under ikigai's sandbox (IKIGAI_SANDBOX set by the host) a refused write
// names the writable roots; the refusal here comes from the permissions.
TEST(FileWriteTool, RefusedWriteUnderTheSandboxIsSandboxDenied) {
  TempDir dir;
  const std::string sandbox =
      R"({"tier":2,"landlock_abi":7,"access":"workspace-write","writable_roots":["/work/ws","/tmp"],"network":false,"protected":[]})";
  ToolRun run = Write({{"file_path", dir / "new.txt"}, {"content", "x"}},
                      {.env = {{"IKIGAI_SANDBOX", sandbox}}, .as_user = kNobody});
  EXPECT_EQ(run.json["error_code"], "SANDBOX_DENIED") << run.out;
  const std::string message = run.json["error"];
  EXPECT_NE(message.find("/work/ws, /tmp"), std::string::npos) << message;
  EXPECT_NE(message.find("sandbox.writable_roots"), std::string::npos) << message;
  EXPECT_NE(message.find("--permissions unrestricted"), std::string::npos) << message;
  EXPECT_NE(message.find("Do not try to work around"), std::string::npos) << message;
  EXPECT_EQ(run.json["writable_roots"], Json({"/work/ws", "/tmp"}));
  EXPECT_TRUE(ListDir(dir.path()).empty());
}

TEST(FileWriteTool, PermissionDeniedOnReadOnlyFileInWritableDirectory) {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);                        // nobody could rename over the file...
  WriteFile(dir / "hosts", "127.0.0.1 localhost\n", 0644);  // ...but may not write it
  ToolRun run = Write({{"file_path", dir / "hosts"}, {"content", "x"}}, {.as_user = kNobody});
  EXPECT_EQ(run.json["error_code"], "PERMISSION_DENIED");
  EXPECT_EQ(ReadFile(dir / "hosts"), "127.0.0.1 localhost\n");
  EXPECT_EQ(ListDir(dir.path()), std::vector<std::string>{"hosts"});
}

// A real full disk: a 64 KB tmpfs in a private mount namespace (unshare -rm
// works as root and as an ordinary user). The script runs the tool there and
// reports what it found, since the mount vanishes with the namespace.
TEST(FileWriteTool, FullDiskIsNoSpaceAndLeavesOldFileWhole) {
  TempDir dir;
  ::mkdir((dir / "disk").c_str(), 0755);
  WriteFile(
      dir / "args.json",
      Json{{"file_path", dir / "disk/data.txt"}, {"content", std::string(200000, 'n')}}.dump());
  const std::string script = "set -e; mount -t tmpfs -o size=64k tmpfs '" + dir / "disk" +
                             "'; printf 'old content\\n' > '" + dir / "disk/data.txt" + "'; '" +
                             ToolPath("file-write") + "' < '" + dir / "args.json" + "' > '" +
                             dir / "answer.json" + "'; cat '" + dir / "disk/data.txt" + "' > '" +
                             dir / "after.txt" + "'; ls -A '" + dir / "disk" + "' > '" +
                             dir / "listing.txt" + "'";
  ToolRun sh = RunExecutable("/usr/bin/unshare", "", {.argv_extra = {"-rm", "sh", "-c", script}});
  ASSERT_EQ(sh.exit_code, 0) << sh.err;
  const Json answer = Json::parse(ReadFile(dir / "answer.json"));
  EXPECT_EQ(answer["error_code"], "NO_SPACE");
  EXPECT_TRUE(answer["error"].get<std::string>().starts_with("No space left on device: " +
                                                             dir / "disk/data.txt"));
  EXPECT_EQ(ReadFile(dir / "after.txt"), "old content\n");
  EXPECT_EQ(ReadFile(dir / "listing.txt"), "data.txt\n") << "no temporary file may be left";
}

// A writable file in a directory its user may not write: `echo > f` works,
// so must file_write (in place).
TEST(FileWriteTool, AWritableFileInAReadOnlyDirectoryIsWritten) {
  TempDir dir;
  ::mkdir((dir / "ro").c_str(), 0755);
  WriteFile(dir / "ro/f.txt", "old\n");
  ASSERT_EQ(::chown((dir / "ro/f.txt").c_str(), kNobody, kNobody), 0);
  ToolRun run =
      Write({{"file_path", dir / "ro/f.txt"}, {"content", "new\n"}}, {.as_user = kNobody});
  EXPECT_EQ(run.json["bytes"], 4) << run.out;
  EXPECT_EQ(ReadFile(dir / "ro/f.txt"), "new\n");
  EXPECT_EQ(ListDir(dir / "ro"), std::vector<std::string>{"f.txt"});
}

// A bind-mounted file cannot be renamed over (EBUSY): it is written in place.
TEST(FileWriteTool, ABindMountedFileIsWrittenInPlace) {
  TempDir dir;
  WriteFile(dir / "mounted.txt", "old\n");
  WriteFile(dir / "args.json",
            Json{{"file_path", dir / "mounted.txt"}, {"content", "new content\n"}}.dump());
  const std::string script = "set -e; mount --bind '" + dir / "mounted.txt" + "' '" +
                             dir / "mounted.txt" + "'; '" + ToolPath("file-write") + "' < '" +
                             dir / "args.json" + "' > '" + dir / "answer.json" + "'";
  ToolRun sh = RunExecutable("/usr/bin/unshare", "", {.argv_extra = {"-rm", "sh", "-c", script}});
  ASSERT_EQ(sh.exit_code, 0) << sh.err;
  const Json answer = Json::parse(ReadFile(dir / "answer.json"));
  EXPECT_EQ(answer["bytes"], 12) << answer.dump();
  EXPECT_EQ(ReadFile(dir / "mounted.txt"), "new content\n");
}

TEST(FileWriteTool, UnicodeAndBinaryContentWrittenAsIs) {
  TempDir dir;
  const std::string text = "tab\there\r\nh\xC3\xA9llo \xF0\x9F\x98\x80\n";
  Write({{"file_path", dir / "u"}, {"content", text}});
  EXPECT_EQ(ReadFile(dir / "u"), text);
  std::string with_nul = std::string("a") + '\0' + "b";
  ToolRun run = Write({{"file_path", dir / "nul"}, {"content", with_nul}});
  EXPECT_EQ(run.json["bytes"], 3);
  EXPECT_EQ(ReadFile(dir / "nul"), with_nul);
}

TEST(FileWriteTool, RelativePathAndBasenameInMessage) {
  TempDir dir;
  ::mkdir((dir / "sub").c_str(), 0755);
  ToolRun run = Write({{"file_path", "sub/notes.md"}, {"content", "hi"}}, {.cwd = dir.path()});
  EXPECT_EQ(run.json["output"], "Wrote 2 bytes to notes.md");
  EXPECT_EQ(ReadFile(dir / "sub/notes.md"), "hi");
}

TEST(FileWriteTool, MalformedInputIsInvalidArgNamingTheParameter) {
  ToolRun run = RunTool("file-write", {{"file_path", "/tmp/x"}});
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  EXPECT_NE(run.json["error"].get<std::string>().find("'content'"), std::string::npos);
  run = RunTool("file-write", {{"file_path", "/tmp/x"}, {"content", 42}});
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  EXPECT_NE(run.json["error"].get<std::string>().find("'content' must be a string"),
            std::string::npos);
  run = RunTool("file-write", {{"file_path", ""}, {"content", "x"}});
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
  run = RunToolRaw("file-write", "[\"file_path\"]");
  EXPECT_EQ(run.json["error_code"], "INVALID_ARG");
}

}  // namespace
}  // namespace ikigai::testing
