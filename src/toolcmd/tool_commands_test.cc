// The tool commands, in-process against real tool directories, and through
// the real `ikigai` binary.
#include "toolcmd/tool_commands.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <sstream>

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

TEST(IkigaiBinary, ListsTheSixCoreToolsAndUserAndProjectTools) {
  TempDir home;
  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteTool(home / ".ikigai/tools", "weather", SchemaScript("weather"));
  WriteTool(home / ".ikigai/tools", "bash", SchemaScript("bash"));  // user overrides system
  auto run = Ikigai({"tool", "list"}, home);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.starts_with("Available tools:\n  bash (.ikigai/tools/bash-tool)\n"))
      << run.out;
  for (const char* name : {"file_edit", "file_read", "file_write", "glob", "grep", "weather"}) {
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

}  // namespace
}  // namespace ikigai::toolcmd
