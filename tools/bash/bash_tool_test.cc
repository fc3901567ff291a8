// The bash tool, tested through its real executable (seeds/000 "Tool: bash",
// DECISIONS §4).
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "base/utf8.h"
#include "testing/tool_runner.h"

namespace {

using ikigai::testing::Json;
using ikigai::testing::ReadFile;
using ikigai::testing::RunOptions;
using ikigai::testing::TempDir;
using ikigai::testing::ToolRun;

constexpr std::size_t kHostLimit = 64 * 1024;  // what the host accepts (DECISIONS §2)
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

ToolRun BashWith(const Json& args, const RunOptions& options = {}) {
  return ikigai::testing::RunTool("bash", args, options);
}

ToolRun Bash(const std::string& command, const RunOptions& options = {}) {
  return BashWith(Json{{"command", command}}, options);
}

// The tool exited 0 and printed one JSON object.
void ExpectWellFormed(const ToolRun& run) {
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(run.json.is_object())
      << "stdout: " << run.out.substr(0, 500) << "\nstderr: " << run.err;
}

void ExpectInvalidArg(const ToolRun& run, std::string_view mentions) {
  ExpectWellFormed(run);
  EXPECT_EQ(run.json.value("error_code", ""), "INVALID_ARG") << run.out;
  EXPECT_NE(run.json.value("error", "").find(mentions), std::string::npos) << run.out;
  EXPECT_FALSE(run.json.contains("output")) << run.out;
}

std::string Output(const ToolRun& run) { return run.json.value("output", std::string("<none>")); }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Processes of process group `pgid` that have not exited (zombies waiting
// for a parent that does not reap them count as exited).
std::vector<pid_t> LiveProcessesInGroup(pid_t pgid) {
  std::vector<pid_t> live;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return live;
  while (dirent* entry = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::string stat;
    try {
      stat = ReadFile("/proc/" + std::string(entry->d_name) + "/stat");
    } catch (...) {
      continue;  // exited meanwhile
    }
    // pid (comm) state ppid pgrp ...; comm may hold spaces, so parse after ')'.
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (std::sscanf(stat.c_str() + paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') live.push_back(pid);
  }
  ::closedir(proc);
  return live;
}

bool GroupGoneWithin(pid_t pgid, std::chrono::milliseconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (!LiveProcessesInGroup(pgid).empty()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

pid_t ParentOf(pid_t pid) {
  std::string stat;
  try {
    stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  } catch (...) {
    return 0;
  }
  const std::size_t paren = stat.rfind(')');
  char state = 0;
  int ppid = 0;
  if (paren == std::string::npos ||
      std::sscanf(stat.c_str() + paren + 1, " %c %d", &state, &ppid) != 2) {
    return 0;
  }
  return ppid;
}

pid_t ReadPid(const std::string& path) { return static_cast<pid_t>(std::stol(ReadFile(path))); }

// --- seeds/000 examples ---------------------------------------------------

// Under ikigai's sandbox (IKIGAI_SANDBOX set by the host) a failed command
// that printed a refusal gets a one-line hint; the output stays as it was.
TEST(BashTool, SandboxHintOnARefusalUnderTheSandbox) {
  const std::string sandbox = R"({"tier":2,"writable_roots":["/work/ws","/tmp"],"network":false})";
  const RunOptions sandboxed{.env = {{"IKIGAI_SANDBOX", sandbox}}};
  const std::string refused = "echo 'sh: cannot create /etc/x: Permission denied' >&2; exit 2";
  ToolRun run = ikigai::testing::RunTool("bash", Json{{"command", refused}}, sandboxed);
  EXPECT_EQ(run.json["output"], "sh: cannot create /etc/x: Permission denied");
  const std::string hint = run.json.value("sandbox_hint", "");
  EXPECT_NE(hint.find("/work/ws, /tmp"), std::string::npos) << run.out;
  EXPECT_NE(hint.find("network is off"), std::string::npos) << run.out;
  EXPECT_NE(hint.find("ask the user"), std::string::npos) << run.out;
  EXPECT_EQ(hint.find('\n'), std::string::npos);

  const std::string offline = "echo 'curl: (6) Could not resolve host: example.com'; exit 6";
  run = ikigai::testing::RunTool("bash", Json{{"command", offline}}, sandboxed);
  EXPECT_TRUE(run.json.contains("sandbox_hint")) << run.out;
  // No hint: not sandboxed, a command that succeeded, or an unrelated failure.
  run = ikigai::testing::RunTool("bash", Json{{"command", refused}});
  EXPECT_FALSE(run.json.contains("sandbox_hint")) << run.out;
  run = ikigai::testing::RunTool("bash", Json{{"command", "echo Permission denied"}}, sandboxed);
  EXPECT_FALSE(run.json.contains("sandbox_hint")) << run.out;
  run = ikigai::testing::RunTool("bash", Json{{"command", "echo nope; exit 1"}}, sandboxed);
  EXPECT_FALSE(run.json.contains("sandbox_hint")) << run.out;
}

TEST(BashTool, EchoHello) {
  const ToolRun run = Bash("echo hello");
  ExpectWellFormed(run);
  EXPECT_EQ(run.out, R"({"output":"hello","exit_code":0})");
}

TEST(BashTool, FailingCommandIsDataNotAnError) {
  const ToolRun run = Bash("false");
  ExpectWellFormed(run);
  EXPECT_EQ(run.out, R"({"output":"","exit_code":1})");
}

TEST(BashTool, CommandNotFound) {
  const ToolRun run = Bash("nonexistent");
  ExpectWellFormed(run);
  EXPECT_EQ(Output(run), "sh: 1: nonexistent: not found");
  EXPECT_EQ(run.json["exit_code"], 127);
}

TEST(BashTool, CommandFailedWithItsOwnCode) {
  const ToolRun run = Bash("ls /nonexistent");
  ExpectWellFormed(run);
  EXPECT_EQ(Output(run), "ls: cannot access '/nonexistent': No such file or directory");
  EXPECT_EQ(run.json["exit_code"], 2);
}

TEST(BashTool, EmptyCommandIsAShellError) {
  for (const std::string command : {"", "   ", " \n\t "}) {
    const ToolRun run = Bash(command);
    ExpectWellFormed(run);
    EXPECT_EQ(run.json["exit_code"], 127) << "command: '" << command << "'";
    EXPECT_EQ(Output(run), "sh: empty command");
  }
}

TEST(BashTool, MultiLineOutputIsPreserved) {
  const ToolRun run = Bash("printf 'a\\nb\\n\\nc\\n'");
  ExpectWellFormed(run);
  EXPECT_EQ(Output(run), "a\nb\n\nc");
}

TEST(BashTool, OnlyOneTrailingNewlineIsStripped) {
  EXPECT_EQ(Output(Bash("printf 'a\\n\\n'")), "a\n");
  EXPECT_EQ(Output(Bash("printf a")), "a");
  EXPECT_EQ(Output(Bash("echo")), "");
}

TEST(BashTool, StderrIsMergedInOrder) {
  const ToolRun run = Bash("echo out; echo err >&2; echo out2; ls /nonexistent 2>&1 >/dev/null");
  ExpectWellFormed(run);
  EXPECT_EQ(Output(run),
            "out\nerr\nout2\nls: cannot access '/nonexistent': No such file or directory");
}

TEST(BashTool, KilledBySignalIs128PlusN) {
  const ToolRun term = Bash("echo before; kill -TERM $$; echo after");
  ExpectWellFormed(term);
  EXPECT_EQ(term.json["exit_code"], 143);
  EXPECT_EQ(Output(term), "before");
  EXPECT_FALSE(term.json.contains("timed_out"));
  const ToolRun kill = Bash("kill -9 $$");
  ExpectWellFormed(kill);
  EXPECT_EQ(kill.json["exit_code"], 137);
  EXPECT_FALSE(kill.json.contains("timed_out"));
}

// --- The command's surroundings -------------------------------------------

TEST(BashTool, StdinIsDevNull) {
  const ToolRun cat = Bash("cat; echo \"status $?\"");
  ExpectWellFormed(cat);
  EXPECT_EQ(Output(cat), "status 0");
  EXPECT_LT(cat.seconds, 10);
  EXPECT_EQ(Output(Bash("read x; echo \"got:$x\"")), "got:");
  EXPECT_EQ(Output(Bash("readlink /proc/$$/fd/0")), "/dev/null");
}

TEST(BashTool, OwnSessionAndProcessGroupWithoutTerminal) {
  // Fields 5-7 of /proc/PID/stat: process group, session, controlling tty.
  const ToolRun run = Bash("tty; echo $$ $(cut -d' ' -f5,6,7 /proc/$$/stat)");
  ExpectWellFormed(run);
  const auto lines = Lines(Output(run));
  ASSERT_EQ(lines.size(), 2u) << Output(run);
  EXPECT_EQ(lines[0], "not a tty");
  int pid = 0, pgrp = 0, session = 0, tty = -1;
  ASSERT_EQ(std::sscanf(lines[1].c_str(), "%d %d %d %d", &pid, &pgrp, &session, &tty), 4);
  EXPECT_EQ(pgrp, pid);
  EXPECT_EQ(session, pid);
  EXPECT_EQ(tty, 0);
  EXPECT_NE(pgrp, ::getpgrp());
}

TEST(BashTool, OnlyStdioDescriptorsAreInherited) {
  EXPECT_EQ(Output(Bash("ls /proc/$$/fd")), "0\n1\n2");
}

TEST(BashTool, EnvironmentKeepsPagersAndGitFromWaiting) {
  RunOptions options;
  options.env = {{"PAGER", "less"},
                 {"GIT_PAGER", "less"},
                 {"GIT_EDITOR", "vi"},
                 {"IKIGAI_TOOL_DEADLINE_MS", "60000"},
                 {"IKIGAI_TEST_INHERITED", "yes"}};
  const ToolRun run = Bash(
      "echo \"$PAGER|$GIT_PAGER|$GIT_TERMINAL_PROMPT|$GIT_EDITOR|"
      "${IKIGAI_TOOL_DEADLINE_MS-unset}|$IKIGAI_TEST_INHERITED\"",
      options);
  ExpectWellFormed(run);
  EXPECT_EQ(Output(run), "cat|cat|0|true|unset|yes");
}

TEST(BashTool, WorkingDirectory) {
  TempDir dir;
  ASSERT_EQ(::mkdir((dir / "sub").c_str(), 0755), 0);
  char* real = ::realpath(dir.path().c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  const std::string real_dir = real;
  ::free(real);

  const ToolRun run = BashWith(Json{{"command", "pwd"}, {"working_directory", dir.path()}});
  ExpectWellFormed(run);
  EXPECT_EQ(Output(run), dir.path());
  EXPECT_EQ(Output(BashWith(Json{{"command", "pwd -P"}, {"working_directory", dir.path()}})),
            real_dir);
  // A relative directory resolves against the tool's own directory.
  RunOptions in_dir;
  in_dir.cwd = dir.path();
  EXPECT_EQ(Output(BashWith(Json{{"command", "pwd -P"}, {"working_directory", "sub"}}, in_dir)),
            real_dir + "/sub");
}

TEST(BashTool, BadWorkingDirectoryIsInvalidArg) {
  TempDir dir;
  ikigai::testing::WriteFile(dir / "file", "x");
  const ToolRun missing =
      BashWith(Json{{"command", "touch created"}, {"working_directory", dir / "missing"}});
  ExpectInvalidArg(missing, "working_directory");
  EXPECT_NE(missing.json.value("error", "").find("omit working_directory"), std::string::npos);
  ExpectInvalidArg(BashWith(Json{{"command", "pwd"}, {"working_directory", dir / "file"}}),
                   "not a directory");
  EXPECT_EQ(ikigai::testing::ListDir(dir.path()), std::vector<std::string>{"file"});
}

TEST(BashTool, NonPositiveTimeoutIsInvalidArg) {
  ExpectInvalidArg(BashWith(Json{{"command", "echo x"}, {"timeout_seconds", 0}}),
                   "timeout_seconds");
  ExpectInvalidArg(BashWith(Json{{"command", "echo x"}, {"timeout_seconds", -5}}),
                   "timeout_seconds");
}

// --- Deadlines and background processes -----------------------------------

TEST(BashTool, TimeoutKillsTheWholeGroupAndKeepsPartialOutput) {
  TempDir dir;
  const ToolRun run =
      BashWith(Json{{"command", "echo $$ > " + (dir / "pgid") + "; echo start; sleep 30"},
                    {"timeout_seconds", 1}});
  ExpectWellFormed(run);
  EXPECT_LT(run.seconds, 5);
  EXPECT_EQ(run.json.value("timed_out", false), true) << run.out;
  EXPECT_EQ(Output(run), "start");
  EXPECT_EQ(run.json["exit_code"], 137);
  EXPECT_EQ(run.json["timeout"], "timeout_seconds (1 s)");
  const pid_t pgid = ReadPid(dir / "pgid");
  EXPECT_TRUE(GroupGoneWithin(pgid, std::chrono::seconds(3)))
      << "left running: " << LiveProcessesInGroup(pgid).size();
}

TEST(BashTool, HostDeadlineStopsTheCommandBeforeTheHostDoes) {
  RunOptions options;
  // Long enough that a loaded machine's slow start still leaves the tool
  // its margin; far below the command's 30 s.
  options.env = {{"IKIGAI_TOOL_DEADLINE_MS", "4000"}};
  // timeout_seconds is bounded by the host's deadline.
  const ToolRun run = BashWith(Json{{"command", "sleep 30"}, {"timeout_seconds", 100}}, options);
  ExpectWellFormed(run);
  EXPECT_LT(run.seconds, 4.0);
  EXPECT_EQ(run.json.value("timed_out", false), true) << run.out;
  // Said plainly: not the timeout the call asked for.
  EXPECT_TRUE(run.json.value("timeout", "")
                  .starts_with("the host's deadline for bash (4 s; "
                               "tools.bash.timeout_ms"))
      << run.out;
}

// The review's case: a command that had finished when the tool next looked,
// after its deadline, was killed as if it had not: reported timed_out (with
// its real exit status) and its background jobs killed. The tool is stopped
// while the command ends and resumed past the deadline.
// The number a command writes to `path`, once it is there (0 after 30 s).
pid_t AwaitPid(const std::string& path) {
  for (int i = 0; i < 3000; ++i) {
    const std::string text = ::access(path.c_str(), F_OK) == 0 ? ReadFile(path) : std::string();
    if (!text.empty() && text.back() == '\n') return static_cast<pid_t>(std::stol(text));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

TEST(BashTool, ACommandThatFinishedBeforeTheToolLookedIsNotTimedOut) {
  TempDir dir;
  RunOptions options;
  options.env = {{"IKIGAI_TOOL_DEADLINE_MS", "3000"}};  // the command's: about 2.5 s
  const auto start = std::chrono::steady_clock::now();
  ToolRun run;
  std::thread tool([&] {
    run = Bash("echo $PPID > " + (dir / "tool") + "; sleep 0.2; sleep 60 > /dev/null 2>&1 & " +
                   "echo $! > " + (dir / "background") + "; : > " + (dir / "done"),
               options);
  });
  const pid_t tool_pid = AwaitPid(dir / "tool");
  ASSERT_GT(tool_pid, 0);
  ASSERT_EQ(::kill(tool_pid, SIGSTOP), 0);
  for (int i = 0; i < 3000 && ::access((dir / "done").c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_until(start + std::chrono::milliseconds(3200));
  ::kill(tool_pid, SIGCONT);
  tool.join();
  ExpectWellFormed(run);
  EXPECT_FALSE(run.json.contains("timed_out")) << run.out;
  EXPECT_EQ(run.json["exit_code"], 0) << run.out;
  const pid_t background = AwaitPid(dir / "background");
  ASSERT_GT(background, 0);
  EXPECT_EQ(::kill(background, 0), 0) << "the background job was killed";
  ::kill(background, SIGKILL);
}

TEST(BashTool, BackgroundChildHoldingStdoutDoesNotHang) {
  TempDir dir;
  for (const std::string command : {"sleep 30 & echo hi", "(sleep 30; echo late) & echo hi"}) {
    const ToolRun run = Bash("echo $$ > " + (dir / "pgid") + "; " + command);
    ExpectWellFormed(run);
    EXPECT_LT(run.seconds, 5) << command;
    EXPECT_EQ(Output(run), "hi");
    EXPECT_EQ(run.json["exit_code"], 0);
    EXPECT_FALSE(run.json.contains("timed_out"));
    // Left running on purpose (a server, say); this test stops it.
    const pid_t pgid = ReadPid(dir / "pgid");
    EXPECT_FALSE(LiveProcessesInGroup(pgid).empty()) << command;
    ::kill(-pgid, SIGKILL);
  }
}

// The tool running `command`, which must write its $$ to `pid_file`, is
// sent `sig` once the command has started. Returns the command's group.
pid_t CancelToolDuring(const std::string& command, const std::string& pid_file, int sig,
                       ToolRun* run) {
  std::thread call([&] { *run = Bash(command); });
  std::string text;
  for (int i = 0; i < 500 && text.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    try {
      text = ReadFile(pid_file);
    } catch (...) {
    }
  }
  const pid_t group = text.empty() ? 0 : static_cast<pid_t>(std::stol(text));
  // The shell's parent is the tool, whose parent is this test.
  const pid_t tool = group > 0 ? ParentOf(group) : 0;
  if (tool > 0 && ParentOf(tool) == ::getpid()) ::kill(tool, sig);
  call.join();
  return group;
}

TEST(BashTool, CancellingTheToolKillsTheCommandGroup) {
  TempDir dir;
  ToolRun run;
  const pid_t group =
      CancelToolDuring("echo $$ > " + (dir / "pid.tmp") + " && mv " + (dir / "pid.tmp") + " " +
                           (dir / "pid") + "; sleep 30; true",
                       dir / "pid", SIGTERM, &run);
  ASSERT_GT(group, 0);
  EXPECT_EQ(run.term_signal, SIGTERM);
  EXPECT_LT(run.seconds, 20);
  EXPECT_TRUE(GroupGoneWithin(group, std::chrono::seconds(3)));
  ::kill(-group, SIGKILL);  // in case it failed
}

TEST(BashTool, KillingTheToolKillsTheShell) {
  TempDir dir;
  ToolRun run;
  const pid_t group =
      CancelToolDuring("echo $$ > " + (dir / "pid.tmp") + " && mv " + (dir / "pid.tmp") + " " +
                           (dir / "pid") + "; exec sleep 30",
                       dir / "pid", SIGKILL, &run);
  ASSERT_GT(group, 0);
  EXPECT_EQ(run.term_signal, SIGKILL);
  EXPECT_TRUE(GroupGoneWithin(group, std::chrono::seconds(3)));
  ::kill(-group, SIGKILL);  // in case it failed
}

// --- Bytes ------------------------------------------------------------------

TEST(BashTool, InvalidUtf8BecomesReplacementCharacters) {
  const ToolRun run = Bash("printf '\\377\\376ok'");
  ExpectWellFormed(run);
  EXPECT_TRUE(ikigai::utf8::IsValid(run.out));
  EXPECT_EQ(Output(run), std::string(kReplacementChar) + std::string(kReplacementChar) + "ok");
}

TEST(BashTool, NulBytesSurvive) {
  const ToolRun run = Bash("printf 'a\\000b'");
  ExpectWellFormed(run);
  EXPECT_NE(run.out.find("a\\u0000b"), std::string::npos) << run.out;
  EXPECT_EQ(Output(run), std::string("a\0b", 3));
}

// --- Long output ------------------------------------------------------------

RunOptions WithTmpDir(const TempDir& dir) {
  RunOptions options;
  options.env = {{"TMPDIR", dir.path()}};
  return options;
}

TEST(BashTool, SpillFilesGoToTheSessionDirectory) {
  TempDir session, tmp;
  RunOptions options = WithTmpDir(tmp);
  options.env.emplace_back("IKIGAI_SESSION_DIR", session.path());
  const ToolRun run = Bash("seq 1 200000", options);
  ExpectWellFormed(run);
  const std::string path = run.json.value("full_output_path", "");
  EXPECT_TRUE(path.starts_with(session.path() + "/ikigai-bash-")) << path;
  EXPECT_TRUE(ikigai::testing::ListDir(tmp.path()).empty());
}

TEST(BashTool, OutputUnderTheBudgetIsWhole) {
  const ToolRun run = Bash("head -c 50000 /dev/zero | tr '\\0' a");
  ExpectWellFormed(run);
  EXPECT_EQ(Output(run), std::string(50000, 'a'));
  EXPECT_FALSE(run.json.contains("truncated"));
  EXPECT_FALSE(run.json.contains("full_output_path"));
}

TEST(BashTool, LongOutputKeepsHeadAndTailAndSavesEverything) {
  TempDir tmp;
  const ToolRun run = Bash("seq 1 200000", WithTmpDir(tmp));
  ExpectWellFormed(run);
  EXPECT_LT(run.out.size(), kHostLimit);
  EXPECT_EQ(run.json.value("truncated", false), true);
  const std::string output = Output(run);
  EXPECT_TRUE(output.starts_with("1\n2\n3\n")) << output.substr(0, 20);
  EXPECT_TRUE(output.ends_with("\n199999\n200000"));

  const std::string path = run.json.value("full_output_path", "");
  ASSERT_TRUE(path.starts_with(tmp.path() + "/ikigai-bash-")) << path;
  EXPECT_TRUE(path.ends_with(".log"));
  std::string expected;
  for (int i = 1; i <= 200000; ++i) expected += std::to_string(i) + "\n";
  EXPECT_EQ(ReadFile(path), expected);  // raw, trailing newline and all
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // Head, marker, tail: the shown numbers run on from both ends, and the
  // marker counts exactly the lines in between.
  const auto lines = Lines(output);
  std::size_t marker = 0;
  while (marker < lines.size() && !lines[marker].starts_with("[... ")) ++marker;
  ASSERT_LT(marker, lines.size());
  EXPECT_EQ(lines[marker].find(path) != std::string::npos, true) << lines[marker];
  EXPECT_NE(lines[marker].find("full output (200000 lines, " + std::to_string(expected.size()) +
                               " bytes)"),
            std::string::npos)
      << lines[marker];
  const int last_head = std::stoi(lines[marker - 1]);
  const int first_tail = std::stoi(lines[marker + 1]);
  EXPECT_EQ(last_head, static_cast<int>(marker));
  EXPECT_EQ(first_tail + static_cast<int>(lines.size() - marker - 2), 200000);
  const std::string omitted = std::to_string(first_tail - last_head - 1) + " lines (";
  EXPECT_TRUE(lines[marker].starts_with("[... " + omitted)) << lines[marker];
  // The head gets about a third of the budget, the tail the rest.
  EXPECT_GT(marker, 1000u);
  EXPECT_GT(lines.size() - marker, marker);
}

TEST(BashTool, HugeOutputKeepsMemoryBoundedAndCapsTheFile) {
  TempDir tmp;
  const ToolRun run = Bash("head -c 300000000 /dev/zero | tr '\\0' a", WithTmpDir(tmp));
  ExpectWellFormed(run);
  EXPECT_LT(run.out.size(), kHostLimit);
  EXPECT_EQ(run.json.value("truncated", false), true);
  const std::string output = Output(run);
  EXPECT_TRUE(output.starts_with("aaaa"));
  EXPECT_TRUE(output.ends_with("aaaa"));
  EXPECT_NE(output.find("300000000 bytes"), std::string::npos);
  EXPECT_NE(output.find("size cap of 64 MiB reached"), std::string::npos);
  const std::string path = run.json.value("full_output_path", "");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
  EXPECT_EQ(st.st_size, 64 << 20);

  // The largest child this test has waited for is the tool (head and tr
  // belong to the shell): far below the 300 MB that went through it.
  rusage usage{};
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 100 * 1024) << "KB";
}

TEST(BashTool, ManyLinesAreSavedExactly) {
  TempDir tmp;
  const ToolRun run = Bash("yes | head -n 5000000", WithTmpDir(tmp));
  ExpectWellFormed(run);
  EXPECT_LT(run.out.size(), kHostLimit);
  EXPECT_EQ(run.json.value("truncated", false), true);
  EXPECT_TRUE(Output(run).ends_with("y\ny"));
  std::string expected;
  for (int i = 0; i < 5000000; ++i) expected += "y\n";
  EXPECT_EQ(ReadFile(run.json.value("full_output_path", "")), expected);
}

TEST(BashTool, OutputThatGrowsWhenEscapedStaysUnderBudget) {
  TempDir tmp;
  const ToolRun run = Bash("head -c 50000 /dev/zero | tr '\\0' '\"'", WithTmpDir(tmp));
  ExpectWellFormed(run);
  EXPECT_LE(run.out.size(), 60u * 1024);
  EXPECT_EQ(run.json.value("truncated", false), true);
  EXPECT_TRUE(Output(run).starts_with("\"\"\"\""));
  EXPECT_NE(Output(run).find("bytes omitted"), std::string::npos);
  EXPECT_EQ(ReadFile(run.json.value("full_output_path", "")), std::string(50000, '"'));
}

TEST(BashTool, LongOutputWithoutAWritableTmpDirSaysSo) {
  RunOptions options;
  options.env = {{"TMPDIR", "/nonexistent-ikigai-dir"}};
  const ToolRun run = Bash("seq 1 100000", options);
  ExpectWellFormed(run);
  EXPECT_LT(run.out.size(), kHostLimit);
  EXPECT_EQ(run.json.value("truncated", false), true);
  EXPECT_FALSE(run.json.contains("full_output_path"));
  EXPECT_NE(Output(run).find("could not be saved: cannot create a file in "
                             "/nonexistent-ikigai-dir"),
            std::string::npos);
  EXPECT_TRUE(Output(run).ends_with("\n100000"));
}

TEST(BashTool, TimedOutLongOutputIsStillCut) {
  TempDir tmp;
  const ToolRun run = BashWith(Json{{"command", "seq 1 100000; sleep 30"}, {"timeout_seconds", 1}},
                               WithTmpDir(tmp));
  ExpectWellFormed(run);
  EXPECT_LT(run.out.size(), kHostLimit);
  EXPECT_EQ(run.json.value("timed_out", false), true);
  EXPECT_EQ(run.json.value("truncated", false), true);
  EXPECT_TRUE(Output(run).ends_with("\n100000"));
}

// --- Blocklist --------------------------------------------------------------

// Runs `command` where a stray `touch ran` would show; as nobody when the
// tests run as root, in case the blocklist ever lets it through.
ToolRun RunGuarded(const TempDir& dir, const std::string& command) {
  ::chmod(dir.path().c_str(), 0777);
  RunOptions options;
  if (::geteuid() == 0) options.as_user = ikigai::testing::kNobody;
  return BashWith(Json{{"command", command}, {"working_directory", dir.path()}}, options);
}

void ExpectBlocked(const ToolRun& run) {
  ExpectWellFormed(run);
  EXPECT_EQ(run.json.value("error_code", ""), "BLOCKED") << run.out;
  EXPECT_TRUE(run.json.value("error", "").starts_with("Command blocked: ")) << run.out;
  EXPECT_FALSE(run.json.contains("output"));
}

TEST(BashTool, RmRfRootIsBlockedAndNothingRuns) {
  TempDir dir;
  // (GNU rm would refuse `rm -rf /` anyway, which makes this safe to try.)
  const ToolRun run = RunGuarded(dir, "touch ran && rm -rf /");
  ExpectBlocked(run);
  EXPECT_NE(run.json.value("error", "").find("whole filesystem"), std::string::npos);
  EXPECT_TRUE(ikigai::testing::ListDir(dir.path()).empty());
}

TEST(BashTool, ForkBombIsBlockedAndNothingRuns) {
  TempDir dir;
  // The bomb is defined but never called, which makes this safe to try.
  const ToolRun run = RunGuarded(dir, "touch ran; bomb(){ bomb|bomb& }; true");
  ExpectBlocked(run);
  EXPECT_NE(run.json.value("error", "").find("fork bomb"), std::string::npos);
  EXPECT_TRUE(ikigai::testing::ListDir(dir.path()).empty());
}

// --- Malformed input (checked by the toolkit) ------------------------------

TEST(BashTool, MissingCommandIsInvalidArg) {
  ExpectInvalidArg(BashWith(Json::object()), "'command'");
}

TEST(BashTool, CommandNotAStringIsInvalidArg) {
  ExpectInvalidArg(BashWith(Json{{"command", 5}}), "'command'");
}

TEST(BashTool, InputNotJsonIsInvalidArg) {
  ExpectInvalidArg(ikigai::testing::RunToolRaw("bash", "echo hello"), "not valid JSON");
}

TEST(BashTool, NulInCommandIsInvalidArg) {
  ExpectInvalidArg(Bash(std::string("echo a\0b", 8)), "NUL");
}

// --- Schema -----------------------------------------------------------------

TEST(BashTool, Schema) {
  RunOptions options;
  options.argv_extra = {"--schema"};
  const ToolRun run = ikigai::testing::RunToolRaw("bash", "", options);
  ExpectWellFormed(run);
  const Json& schema = run.json;
  EXPECT_EQ(schema["name"], "bash");
  EXPECT_TRUE(
      schema.value("description", "").starts_with("Execute a shell command and return output"));
  EXPECT_TRUE(schema.value("description", "")
                  .ends_with("Returns: {output, exit_code, timed_out?, timeout?, truncated?, "
                             "full_output_path?}, or with run_in_background {task_id, status: "
                             "\"running\", output_file, output}."));
  const Json& parameters = schema["parameters"];
  EXPECT_EQ(parameters["type"], "object");
  EXPECT_EQ(parameters["required"], Json::array({"command"}));
  const Json& properties = parameters["properties"];
  EXPECT_EQ(properties.size(), 4u);
  EXPECT_EQ(properties["command"]["type"], "string");
  EXPECT_EQ(properties["command"]["description"], "Shell command to execute");
  EXPECT_EQ(properties["timeout_seconds"]["type"], "integer");
  EXPECT_EQ(properties["working_directory"]["type"], "string");
  EXPECT_EQ(properties["run_in_background"]["type"], "boolean");
  EXPECT_EQ(schema["annotations"]["readOnlyHint"], false);
  EXPECT_EQ(schema["annotations"]["destructiveHint"], true);
}

}  // namespace
