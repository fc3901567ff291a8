// The tool commands, in-process against real tool directories, and through
// the real `ikigai` binary.
#include "toolcmd/tool_commands.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <thread>
#include <vector>

#include "mcpclient/testing/peer.h"
#include "session/tool_listing.h"
#include "testing/tool_runner.h"

namespace ikigai::toolcmd {
namespace {

using testing::TempDir;
using testing::WriteFile;

const std::string kIkigai = IKIGAI_BIN;

void WriteTool(const std::string& dir, const std::string& name, const std::string& body) {
  ::mkdir(dir.c_str(), 0755);
  WriteFile(dir + "/" + name + "-tool", "#!/bin/sh\n" + body, 0755);
}

std::string SchemaScript(const std::string& name) {
  return "if [ \"$1\" = --schema ]; then echo '{\"name\": \"" + name +
         "\", \"description\": \"d\", \"parameters\": {\"type\": \"object\", \"properties\": "
         "{\"x\": {\"type\": \"string\"}}, \"required\": []}}'; exit 0; fi\n"
         "cat >/dev/null; echo '{\"output\": \"" +
         name + " ran\"}'\n";
}

session::HostContext Host(const TempDir& dir) {
  session::HostContext host;
  host.directories = {dir / "system", dir / "user", dir / "project"};
  host.registry = std::make_shared<const registry::Registry>(discovery::Discover(host.directories));
  return host;
}

TEST(ToolCommands, ListShowsNamesAndPathsThenProblems) {
  TempDir dir;
  WriteTool(dir / "system", "beta", SchemaScript("beta"));
  WriteTool(dir / "system", "alpha", SchemaScript("alpha"));
  WriteTool(dir / "user", "broken", "exit 3\n");
  std::ostringstream out;
  EXPECT_EQ(session::ListTools(Host(dir), out), 0);
  EXPECT_EQ(out.str(),
            "Available tools:\n"
            "  alpha (" +
                dir / "system/alpha-tool" +
                ")\n"
                "  beta (" +
                dir / "system/beta-tool" +
                ")\n"
                "Debug: tool 'broken' schema failed (exit code 3)\n");
}

TEST(ToolCommands, ShowPrintsToolPathAndSchema) {
  TempDir dir;
  WriteTool(dir / "system", "alpha", SchemaScript("alpha"));
  std::ostringstream out, err;
  EXPECT_EQ(session::ShowTool(Host(dir), "alpha", out, err), 0);
  const std::string text = out.str();
  EXPECT_TRUE(
      text.starts_with("Tool: alpha\nPath: " + dir / "system/alpha-tool" + "\nSchema:\n{\n"))
      << text;
  EXPECT_NE(text.find("  \"name\": \"alpha\""), std::string::npos) << text;
  EXPECT_TRUE(err.str().empty());
}

TEST(ToolCommands, ShowUnknownToolNamesItAndFails) {
  TempDir dir;
  std::ostringstream out, err;
  EXPECT_EQ(session::ShowTool(Host(dir), "foo", out, err), 1);
  EXPECT_EQ(err.str(), "Unknown tool: 'foo'\nUse /tool to see available tools.\n");
}

TEST(ToolCommands, CallPrintsTheWrapperAndExitsByToolSuccess) {
  TempDir dir;
  WriteTool(dir / "system", "alpha", SchemaScript("alpha"));
  WriteTool(dir / "system", "crash",
            "if [ \"$1\" = --schema ]; then echo '{\"name\": \"crash\", "
            "\"description\": \"d\", \"parameters\": {\"type\": "
            "\"object\", \"properties\": {}}}'; exit 0; fi\nexit 4\n");
  const session::HostContext host = Host(dir);
  std::ostringstream ok;
  EXPECT_EQ(CallTool(host, "alpha", "{\"x\": \"1\"}", ok), 0);
  const auto wrapped = nlohmann::json::parse(ok.str());
  EXPECT_EQ(wrapped["tool_success"], true);
  EXPECT_EQ(wrapped["result"]["output"], "alpha ran");

  std::ostringstream crashed;
  EXPECT_EQ(CallTool(host, "crash", "{}", crashed), 1);
  EXPECT_EQ(nlohmann::json::parse(crashed.str())["error_code"], "TOOL_CRASHED");

  std::ostringstream missing;
  EXPECT_EQ(CallTool(host, "nope", "{}", missing), 1);
  EXPECT_EQ(nlohmann::json::parse(missing.str())["error_code"], "TOOL_NOT_FOUND");

  std::ostringstream bad;
  EXPECT_EQ(CallTool(host, "alpha", "{not json", bad), 1);
  EXPECT_EQ(nlohmann::json::parse(bad.str())["error_code"], "INVALID_PARAMS");
}

// The real binary: its system directory is build/libexec/ikigai beside it.
testing::ToolRun Ikigai(const std::vector<std::string>& args, const TempDir& home,
                        const std::string& input = "") {
  return testing::RunExecutable(
      kIkigai, input, {.argv_extra = args, .env = {{"HOME", home.path()}}, .cwd = home.path()});
}

// The host hands web_fetch its setting from the configuration: a local
// server is refused, the error says how to allow it, and the setting does.
TEST(IkigaiBinary, WebFetchReachesALocalServerOnlyWhenTheConfigurationAllowsIt) {
  TempDir home;
  ::mkdir((home / "site").c_str(), 0755);
  WriteFile(home / "site/index.html",
            "<html><body><h1>Local page</h1><p>dev server</p></body></html>");
  testing::Peer server;
  ASSERT_TRUE(server.Start({"python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                            "--directory", home / "site"},
                           {}, "port "))
      << server.output();
  const std::string url = "http://127.0.0.1:" + std::to_string(std::stoi(server.found())) + "/";
  const std::string args = "{\"url\": \"" + url + "\"}";

  auto refused = Ikigai({"tool", "call", "web_fetch", args}, home);
  EXPECT_EQ(refused.json["result"]["error_code"], "BLOCKED_ADDRESS") << refused.out;
  EXPECT_NE(refused.out.find("allow_private_networks"), std::string::npos) << refused.out;

  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteFile(home / ".ikigai/config.json", R"({"web_fetch": {"allow_private_networks": true}})");
  auto fetched = Ikigai({"tool", "call", "web_fetch", args}, home);
  EXPECT_EQ(fetched.exit_code, 0) << fetched.out << fetched.err;
  EXPECT_NE(fetched.json["result"]["content"].get<std::string>().find("# Local page"),
            std::string::npos)
      << fetched.out;
}

// A tool's progress lines show on stderr when it is tried by hand, and its
// questions are NO_USER.
TEST(IkigaiBinary, ToolCallShowsProgressAndAnswersQuestionsNoUser) {
  TempDir home;
  ::mkdir((home / ".ikigai").c_str(), 0755);
  ::mkdir((home / ".ikigai/tools").c_str(), 0755);
  for (const char* example : {"checksum-tool", "choose-tool"}) {
    ASSERT_EQ(::symlink((std::string(IKIGAI_EXAMPLES_DIR) + "/" + example).c_str(),
                        (home / ".ikigai/tools/" + example).c_str()),
              0);
  }
  WriteFile(home / "a.txt", "a");
  auto hashed = Ikigai({"tool", "call", "checksum", R"({"paths": ["a.txt"]})"}, home);
  EXPECT_EQ(hashed.exit_code, 0) << hashed.out << hashed.err;
  EXPECT_NE(hashed.err.find("[progress] checksum: hashing 1 of 1: a.txt\n"), std::string::npos)
      << hashed.err;
  auto chosen = Ikigai({"tool", "call", "choose", R"({"question": "Q?", "choices": ["a"]})"}, home);
  EXPECT_EQ(chosen.json["result"]["error_code"], "NO_USER") << chosen.out;
  EXPECT_NE(chosen.out.find("ikigai tool call"), std::string::npos) << chosen.out;
}

TEST(IkigaiBinary, VersionAndHelp) {
  TempDir home;
  auto version = Ikigai({"--version"}, home);
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(version.out.starts_with("ikigai ")) << version.out;
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"},
                                                                {"tool", "--help"},
                                                                {"tool", "list", "--help"},
                                                                {"tool", "call", "--help"},
                                                                {"tool", "check", "--help"},
                                                                {"tool", "show", "--help"}}) {
    auto help = Ikigai(args, home);
    EXPECT_EQ(help.exit_code, 0) << args.back();
    EXPECT_NE(help.out.find("Usage"), std::string::npos) << help.out;
  }
}

TEST(IkigaiBinary, HelpSaysWhatTheSandboxAllowsHere) {
  TempDir home;
  auto help = Ikigai({"--help"}, home);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Sandbox on this machine (every mode but unrestricted"),
            std::string::npos)
      << help.out;
  EXPECT_TRUE(help.out.find("\n  tier ") != std::string::npos ||
              help.out.find("\n  none: Landlock is not available") != std::string::npos)
      << help.out;
}

// A call by hand is the user's own action: their rights, unless --sandbox.
TEST(IkigaiBinary, ToolCallIsConfinedOnlyWithSandbox) {
  TempDir home;
  char outside[] = "/var/tmp/ikigai-tool-call-XXXXXX";  // /tmp is writable in the sandbox
  ASSERT_NE(::mkdtemp(outside), nullptr);
  const std::string target = std::string(outside) + "/written";
  const std::string args = R"({"command": "echo x > )" + target + R"("})";
  auto confined = Ikigai({"tool", "call", "--sandbox", "bash", args}, home);
  const bool landlock = confined.err.find("no Landlock") == std::string::npos;
  if (landlock) {
    EXPECT_NE(::access(target.c_str(), F_OK), 0) << confined.out;
    EXPECT_NE(confined.out.find("sandbox_hint"), std::string::npos) << confined.out;
  }
  auto plain = Ikigai({"tool", "call", "bash", args}, home);
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(::access(target.c_str(), F_OK), 0) << plain.out;
  ::unlink(target.c_str());
  ::rmdir(outside);
  if (!landlock) GTEST_SKIP() << "no Landlock here: --sandbox cannot confine files";
}

// Listing is not calling: a tool's --schema is never the user's own action
// and runs confined (read-only) even for `ikigai --trust tool list`.
TEST(IkigaiBinary, ToolListRunsSchemasConfined) {
  TempDir home;
  char outside[] = "/var/tmp/ikigai-tool-list-XXXXXX";  // /tmp is writable in the sandbox
  ASSERT_NE(::mkdtemp(outside), nullptr);
  const std::string mark = std::string(outside) + "/mark";
  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteTool(home / ".ikigai/tools", "marker",
            "[ \"$1\" = --schema ] && touch " + mark + "\n" + SchemaScript("marker"));
  auto run = Ikigai({"tool", "list"}, home);
  EXPECT_NE(run.out.find("  marker ("), std::string::npos) << run.out << run.err;
  const bool landlock = run.err.find("no Landlock") == std::string::npos &&
                        Ikigai({"--help"}, home).out.find("\n  none:") == std::string::npos;
  if (landlock) {
    EXPECT_NE(::access(mark.c_str(), F_OK), 0) << "--schema wrote outside";
  }
  ::unlink(mark.c_str());
  ::rmdir(outside);
  if (!landlock) GTEST_SKIP() << "no Landlock here: --schema cannot be confined";
}

// The bash tool saves long output in the session's directory, which goes
// when `ikigai tool call` ends: the file the answer names must stay.
TEST(IkigaiBinary, ACallsSavedFullOutputOutlivesTheCall) {
  TempDir home, tmp;
  auto run = testing::RunExecutable(
      kIkigai, "",
      {.argv_extra = {"tool", "call", "bash", R"({"command": "seq 1 200000"})"},
       .env = {{"HOME", home.path()}, {"TMPDIR", tmp.path()}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string saved = run.json["result"].value("full_output_path", "");
  ASSERT_FALSE(saved.empty()) << run.out;
  EXPECT_TRUE(saved.starts_with(tmp.path() + "/")) << saved;
  const std::string text = testing::ReadFile(saved);
  EXPECT_TRUE(text.starts_with("1\n2\n")) << saved;
  EXPECT_TRUE(text.ends_with("199999\n200000\n") || text.ends_with("199999\n200000")) << saved;
}

// Processes whose environment holds `entry` ("NAME=value").
std::vector<pid_t> ProcessesWithEnvironment(const std::string& entry) {
  std::vector<pid_t> found;
  for (const auto& proc : std::filesystem::directory_iterator("/proc")) {
    const std::string name = proc.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string environ;
    try {
      environ = testing::ReadFile(proc.path().string() + "/environ");
    } catch (...) {
      continue;  // exited, or not ours to read
    }
    if (("\0" + environ).find("\0" + entry + "\0") != std::string::npos) {
      found.push_back(static_cast<pid_t>(std::stoi(name)));
    }
  }
  return found;
}

// `ikigai tool call` is a session of its own: a background command it
// starts is answered for at once, and ends with the call, its task
// directory removed and no process of the session left.
TEST(IkigaiBinary, ABackgroundTaskEndsWithTheToolCallsSession) {
  TempDir home, tmp;
  auto run = testing::RunExecutable(
      kIkigai, "",
      {.argv_extra = {"tool", "call", "bash",
                      R"({"command": "sleep 300", "run_in_background": true})"},
       .env = {{"HOME", home.path()}, {"TMPDIR", tmp.path()}}});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.json["result"].value("status", ""), "running") << run.out;
  const std::string output_file = run.json["result"].value("output_file", "");
  ASSERT_TRUE(output_file.starts_with(tmp.path() + "/ikigai-session-")) << run.out;
  const std::string session_dir = output_file.substr(0, output_file.find("/tasks/"));
  // The host's guard kills what is left and removes the directory once the
  // host has ended.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while ((std::filesystem::exists(session_dir) ||
          !ProcessesWithEnvironment("IKIGAI_SESSION_DIR=" + session_dir).empty()) &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(std::filesystem::exists(session_dir));
  EXPECT_EQ(ProcessesWithEnvironment("IKIGAI_SESSION_DIR=" + session_dir), std::vector<pid_t>{});
}

// A directory under /var/tmp (the sandbox lets tools write /tmp), removed
// with everything in it; world-readable so that nobody can reach it.
class VarTmpDir {
 public:
  VarTmpDir() {
    char tmpl[] = "/var/tmp/ikigai-toolcmd-XXXXXX";
    path_ = ::mkdtemp(tmpl) != nullptr ? tmpl : "";
    ::chmod(path_.c_str(), 0755);
  }
  ~VarTmpDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Tools run as the host's user, who may read a dumpable process's
// /proc/PID/environ, keys included. ikigai makes itself non-dumpable, which
// is what stops a tool at tier 0 (no Landlock); and tier 2 must still work
// for an ordinary user (its children share the host's memory until exec).
TEST(IkigaiBinary, ToolCallsOfAnOrdinaryUserCannotReadTheHostsEnvironment) {
  VarTmpDir dir;
  const std::string home = dir.path() + "/home", ws = dir.path() + "/ws";
  for (const std::string& d : {home, ws}) {
    ASSERT_EQ(::mkdir(d.c_str(), 0755), 0);
    ASSERT_EQ(::chown(d.c_str(), testing::kNobody, testing::kNobody), 0);
  }
  const std::string command =
      "echo ok > mine; printf 'tier=%s\\n' \"$IKIGAI_SANDBOX\" | cut -c1-16; host=$$; "
      "while [ \"$host\" -gt 1 ] && [ \"$(cat /proc/$host/comm)\" != ikigai ]; do "
      "host=$(sed 's/.*) //' /proc/$host/stat | cut -d' ' -f2); done; echo host=$host; "
      "tr '\\0' '\\n' < /proc/$host/environ";
  const std::string args = nlohmann::json{{"command", command}}.dump();
  struct Tier {
    const char* abi;
    const char* no_userns;
    const char* want;
  };
  for (const Tier& tier :
       {Tier{"", "", "{\"tier\":2"}, Tier{"", "1", "{\"tier\":1"}, Tier{"0", "", "{\"tier\":0"}}) {
    SCOPED_TRACE(tier.want);
    std::filesystem::remove(ws + "/mine");
    auto run = testing::RunExecutable(kIkigai, "",
                                      {.argv_extra = {"tool", "call", "--sandbox", "bash", args},
                                       .env = {{"HOME", home},
                                               {"TMPDIR", ""},
                                               {"XDG_RUNTIME_DIR", ""},
                                               {"ANTHROPIC_API_KEY", "sk-ant-host-only-1234"},
                                               {"IKIGAI_TEST_LANDLOCK_ABI", tier.abi},
                                               {"IKIGAI_TEST_NO_USERNS", tier.no_userns}},
                                       .cwd = ws,
                                       .as_user = testing::kNobody});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(testing::ReadFile(ws + "/mine"), "ok\n") << run.out << run.err;
    EXPECT_NE(run.out.find("host="), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("sk-ant-host-only"), std::string::npos) << run.out;
    const bool here = run.err.find("no Landlock") == std::string::npos &&
                      run.err.find("unavailable") == std::string::npos;
    const auto wrapped = nlohmann::json::parse(run.out, nullptr, false);
    const std::string output =
        wrapped.is_object() ? wrapped["result"].value("output", std::string()) : run.out;
    if (here && output.find(std::string("tier=") + tier.want) == std::string::npos) {
      ADD_FAILURE() << "not at the tier wanted:\n" << run.out << run.err;
    }
  }
}

// Started in the parent of $HOME with TMPDIR=$HOME, nothing of the home
// directory is writable, and ikigai says what it kept from being writable,
// and why; tools are given /tmp as TMPDIR.
TEST(IkigaiBinary, ToolCallStartedAboveHomeKeepsHomeClosedAndSaysSo) {
  VarTmpDir dir;
  const std::string home = dir.path() + "/home/user";
  ASSERT_TRUE(std::filesystem::create_directories(home));
  WriteFile(home + "/.bashrc", "# bashrc\n");
  const std::string args =
      nlohmann::json{
          {"command", "echo pwned >> ~/.bashrc; echo pwned > ~/planted; echo \"TMPDIR=$TMPDIR\""}}
          .dump();
  auto run = testing::RunExecutable(kIkigai, "",
                                    {.argv_extra = {"tool", "call", "--sandbox", "bash", args},
                                     .env = {{"HOME", home}, {"TMPDIR", home}},
                                     .cwd = dir.path() + "/home"});
  if (run.err.find("no Landlock") != std::string::npos) GTEST_SKIP() << "no Landlock here";
  EXPECT_EQ(testing::ReadFile(home + "/.bashrc"), "# bashrc\n") << run.out;
  EXPECT_FALSE(std::filesystem::exists(home + "/planted")) << run.out;
  EXPECT_NE(run.err.find("ikigai: Note: sandbox: the working directory " + dir.path() +
                         "/home is not writable: it holds your home directory"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("ikigai: Note: sandbox: TMPDIR=" + home +
                         " is not writable: it is your home directory; tools get /tmp instead"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("TMPDIR=/tmp"), std::string::npos) << run.out;
}

TEST(IkigaiBinary, ListsTheCoreToolsAndUserAndProjectTools) {
  TempDir home;
  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteTool(home / ".ikigai/tools", "weather", SchemaScript("weather"));
  WriteTool(home / ".ikigai/tools", "bash", SchemaScript("bash"));  // user overrides system
  auto run = Ikigai({"tool", "list"}, home);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.starts_with("Available tools:\n  ask_user ")) << run.out;
  EXPECT_NE(run.out.find("\n  bash (.ikigai/tools/bash-tool)\n"), std::string::npos) << run.out;
  for (const char* name :
       {"file_edit", "file_read", "file_write", "glob", "grep", "task", "weather"}) {
    EXPECT_NE(run.out.find(std::string("  ") + name + " ("), std::string::npos) << name << run.out;
  }
  EXPECT_NE(run.out.find("  file_read (" + std::string(IKIGAI_TOOL_DIR) + "/file-read-tool)"),
            std::string::npos)
      << run.out;
}

TEST(IkigaiBinary, CallsACoreTool) {
  TempDir home;
  auto run = Ikigai({"tool", "call", "bash", "{\"command\": \"echo hello\"}"}, home);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto wrapped = nlohmann::json::parse(run.out);
  EXPECT_EQ(wrapped["tool_success"], true);
  EXPECT_EQ(wrapped["result"]["output"], "hello");
  auto from_stdin = Ikigai({"tool", "call", "file_read", "-"}, home, "{\"file_path\": \"/nope\"}");
  EXPECT_EQ(from_stdin.exit_code, 0) << "an operation failure is still tool_success";
  EXPECT_EQ(nlohmann::json::parse(from_stdin.out)["result"]["error_code"], "FILE_NOT_FOUND");
}

TEST(IkigaiBinary, ShowUnknownToolExitsOne) {
  TempDir home;
  auto run = Ikigai({"tool", "show", "foo"}, home);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "Unknown tool: 'foo'\nUse /tool to see available tools.\n");
}

TEST(IkigaiBinary, BadConfigIsReportedWithFileAndKey) {
  TempDir home;
  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteFile(home / ".ikigai/config.json", "{\"tool_timeout_ms\": \"soon\"}");
  auto run = Ikigai({"tool", "list"}, home);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("config.json"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("tool_timeout_ms"), std::string::npos) << run.err;
}

// A configuration error quotes the file: its controls are shown, not obeyed.
TEST(IkigaiBinary, AConfigErrorNeverDrivesTheTerminal) {
  TempDir home;
  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteFile(home / ".ikigai/config.json", "{\"\\u001b]0;PWNED\\u0007x\": 1}");
  auto run = Ikigai({"tool", "list"}, home);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\\x1b]0;PWNED"), std::string::npos) << run.err;
}

// Trust (DECISIONS §6): a cloned repository's tool must not run, not even
// its --schema, until the folder is trusted. The tool leaves a mark outside
// the project whenever it runs at all.
class TrustBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir(project_.c_str(), 0755);
    ::mkdir((project_ + "/.ikigai").c_str(), 0755);
    WriteTool(project_ + "/.ikigai/tools", "planted",
              "echo ran >> '" + mark_ + "'\n" + SchemaScript("planted"));
  }
  testing::ToolRun Run(const std::vector<std::string>& args) const {
    return testing::RunExecutable(
        kIkigai, "", {.argv_extra = args, .env = {{"HOME", home_.path()}}, .cwd = project_});
  }
  bool Marked() const { return ::access(mark_.c_str(), F_OK) == 0; }

  TempDir home_, outside_;
  const std::string project_ = home_ / "repo";
  const std::string mark_ = outside_ / "mark";
};

TEST_F(TrustBinary, AnUntrustedProjectToolNeverRunsAndOneLineSaysHowToTrust) {
  auto list = Run({"tool", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_FALSE(Marked()) << "the project tool's --schema ran in an untrusted folder";
  EXPECT_EQ(list.out.find("planted"), std::string::npos) << list.out;
  EXPECT_EQ(list.err,
            "ikigai: skipped ./.ikigai/ (1 tool): this folder is not trusted, so none of it runs. "
            "Trust it with `ikigai trust`, or for one run with --trust.\n");
  auto call = Run({"tool", "call", "planted", "{}"});
  EXPECT_EQ(call.exit_code, 1);
  EXPECT_FALSE(Marked());
}

TEST_F(TrustBinary, TrustForOneRunThenRecordedThenTakenBack) {
  auto once = Run({"--trust", "tool", "list"});
  EXPECT_NE(once.out.find("  planted (.ikigai/tools/planted-tool)"), std::string::npos) << once.out;
  EXPECT_TRUE(Marked());
  ::unlink(mark_.c_str());
  EXPECT_EQ(Run({"tool", "list"}).out.find("planted"), std::string::npos) << "only one run";
  EXPECT_FALSE(Marked());

  auto trust = Run({"trust"});
  EXPECT_EQ(trust.exit_code, 0) << trust.err;
  EXPECT_NE(trust.out.find("Trusted "), std::string::npos) << trust.out;
  auto call = Run({"tool", "call", "planted", "{}"});
  EXPECT_EQ(call.exit_code, 0) << call.out << call.err;
  EXPECT_TRUE(Marked());
  EXPECT_EQ(call.err, "");
  // Kept under ~/.ikigai, never in the repository.
  EXPECT_NE(testing::ReadFile(home_ / ".ikigai/projects.json").find("\"trusted\": true"),
            std::string::npos);
  EXPECT_EQ(testing::ListDir(project_ + "/.ikigai"), std::vector<std::string>{"tools"});

  ::unlink(mark_.c_str());
  EXPECT_EQ(Run({"untrust", project_}).exit_code, 0);
  EXPECT_EQ(Run({"tool", "list"}).out.find("planted"), std::string::npos);
  EXPECT_FALSE(Marked());
}

TEST_F(TrustBinary, ToolCheckIgnoresAnUntrustedProjectConfig) {
  testing::WriteFile(project_ + "/.ikigai/config.json", "{broken");
  auto check = Run({"tool", "check", project_ + "/.ikigai/tools/planted-tool"});
  // Checked (the planted tool breaks a rule: exit 1), not stopped by the
  // project's broken config (exit 2).
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_EQ(check.err.find("config.json"), std::string::npos) << check.err;
  EXPECT_NE(check.out.find("rules broken"), std::string::npos) << check.out;
}

TEST_F(TrustBinary, AnUntrustedProjectConfigIsNotApplied) {
  WriteFile(project_ + "/.ikigai/config.json", "{\"tool_timeout_ms\": \"soon\"}");
  auto untrusted = Run({"tool", "list"});
  EXPECT_EQ(untrusted.exit_code, 0) << "the bad config was not even read: " << untrusted.err;
  EXPECT_NE(untrusted.err.find("(1 tool, a config file)"), std::string::npos) << untrusted.err;
  auto trusted = Run({"--trust", "tool", "list"});
  EXPECT_EQ(trusted.exit_code, 2);
  EXPECT_NE(trusted.err.find("tool_timeout_ms"), std::string::npos) << trusted.err;
}

// Secrets stay with the host: a tool's environment has no key unless
// tools.env_passthrough names it.
TEST(IkigaiBinary, ToolsNeverSeeTheHostsSecrets) {
  TempDir home;
  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteTool(home / ".ikigai/tools", "printenv",
            "[ \"$1\" = --schema ] && { echo '{\"name\": \"printenv\", \"description\": \"d\", "
            "\"parameters\": {\"type\": \"object\", \"properties\": {}}}'; exit 0; }\ncat "
            // Quotes, backslashes (make's MAKEFLAGS has them) and controls
            // would make invalid JSON: turned into plain characters.
            ">/dev/null; printf '{\"env\": \"%s\"}' \"$(env | tr '\\n\"\\\\' ' _/' | tr -d "
            "'\\000-\\037')\"\n");
  const std::vector<std::pair<std::string, std::string>> env = {
      {"HOME", home.path()},
      {"ANTHROPIC_API_KEY", "sk-ant-secret-1"},
      {"OPENAI_API_KEY", "sk-secret-2"},
      {"GITHUB_TOKEN", "ghp-secret-3"},
      {"DB_PASSWORD", "hunter2"},
      {"IKIGAI_VISIBLE", "plain-value"}};
  const auto run = [&](const std::string& tool, const std::string& args) {
    return testing::RunExecutable(
        kIkigai, "", {.argv_extra = {"tool", "call", tool, args}, .env = env, .cwd = home.path()});
  };
  for (const auto& [tool, args] : std::vector<std::pair<std::string, std::string>>{
           {"bash", "{\"command\": \"env\"}"}, {"printenv", "{}"}}) {
    auto result = run(tool, args);
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("plain-value"), std::string::npos) << tool << result.out;
    for (const char* secret : {"sk-ant-secret-1", "sk-secret-2", "ghp-secret-3", "hunter2"}) {
      EXPECT_EQ(result.out.find(secret), std::string::npos) << tool << " shows " << secret;
    }
  }
  WriteFile(home / ".ikigai/config.json", R"({"tools": {"env_passthrough": ["GITHUB_TOKEN"]}})");
  auto passed = run("bash", "{\"command\": \"env\"}");
  EXPECT_NE(passed.out.find("GITHUB_TOKEN=ghp-secret-3"), std::string::npos) << passed.out;
  EXPECT_EQ(passed.out.find("sk-ant-secret-1"), std::string::npos);
}

}  // namespace
}  // namespace ikigai::toolcmd
