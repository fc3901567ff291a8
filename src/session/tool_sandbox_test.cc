#include "session/tool_sandbox.h"

#include <gtest/gtest.h>

namespace ikigai::session {
namespace {

using permissions::Mode;
using sandbox::Access;

permissions::CallFacts Bash(const std::string& command) {
  return {"bash", {{"command", command}}, false, false};
}

std::unique_ptr<sandbox::Sandbox> WithSupport(int abi, bool userns) {
  sandbox::Settings settings;
  settings.workspace = "/tmp/ikigai-tool-sandbox-test";
  auto created = sandbox::Sandbox::Create(settings, {abi, userns, "user namespaces are off"});
  EXPECT_TRUE(created) << created.error();
  return created ? std::move(*created) : nullptr;
}

// A schema's hints are trusted only as booleans: "true" or null is no hint,
// and never an exception.
TEST(ToolSandbox, HintsThatAreNotBooleansAreNoHints) {
  registry::Tool tool;
  tool.name = "odd";
  tool.schema.annotations = {{"readOnlyHint", "true"}, {"openWorldHint", nullptr}};
  const permissions::CallFacts odd = CallFactsFor(tool, nlohmann::json::object());
  EXPECT_FALSE(odd.read_only_hint);
  EXPECT_FALSE(odd.open_world_hint);
  tool.schema.annotations = {{"readOnlyHint", true}, {"openWorldHint", true}};
  const permissions::CallFacts hinted = CallFactsFor(tool, nlohmann::json::object());
  EXPECT_TRUE(hinted.read_only_hint);
  EXPECT_TRUE(hinted.open_world_hint);
}

TEST(ToolSandbox, TheProfileFollowsTheModeAndTheCall) {
  EXPECT_FALSE(ProfileFor(Mode::kUnrestricted, Bash("touch x")));
  EXPECT_EQ(ProfileFor(Mode::kReadOnly, Bash("touch x"))->access, Access::kReadOnly);
  EXPECT_EQ(ProfileFor(Mode::kAuto, Bash("touch x"))->access, Access::kWorkspaceWrite);
  // What the permission layer lets run as read-only, the kernel holds to it.
  EXPECT_EQ(ProfileFor(Mode::kAuto, Bash("ls -la"))->access, Access::kReadOnly);
  EXPECT_EQ(ProfileFor(Mode::kAsk, Bash("ls > f"))->access, Access::kWorkspaceWrite);
  const permissions::CallFacts reader{"file_read", {{"path", "x"}}, true, false};
  EXPECT_EQ(ProfileFor(Mode::kAuto, reader)->access, Access::kReadOnly);
  EXPECT_FALSE(ProfileFor(Mode::kAuto, reader)->network);
  const permissions::CallFacts fetch{"web_fetch", {{"url", "https://example.com"}}, false, true};
  EXPECT_TRUE(ProfileFor(Mode::kAsk, fetch)->network);
  EXPECT_FALSE(ProfileFor(Mode::kAsk, Bash("curl example.com"))->network);
}

TEST(ToolSandbox, AutoNeedsLandlockAndTheOtherModesSaySoOnce) {
  auto none = WithSupport(0, false);
  const std::string refusal = ModeRefusal(*none, Mode::kAuto);
  EXPECT_NE(refusal.find("no Landlock"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("--permissions auto-edit or ask"), std::string::npos) << refusal;
  for (Mode mode : {Mode::kReadOnly, Mode::kAsk, Mode::kAutoEdit, Mode::kUnrestricted}) {
    EXPECT_EQ(ModeRefusal(*none, mode), "") << permissions::ModeName(mode);
  }
  EXPECT_NE(SandboxNotice(*none, Mode::kAsk).find("run unconfined"), std::string::npos);
  EXPECT_EQ(SandboxNotice(*none, Mode::kUnrestricted), "");

  auto tier1 = WithSupport(4, false);
  EXPECT_EQ(ModeRefusal(*tier1, Mode::kAuto), "");
  const std::string notice = SandboxNotice(*tier1, Mode::kAuto);
  EXPECT_NE(notice.find("tier 1 only (user namespaces are off)"), std::string::npos) << notice;
  EXPECT_NE(notice.find("checked after each writing call"), std::string::npos) << notice;

  EXPECT_EQ(SandboxNotice(*WithSupport(7, true), Mode::kAuto), "");
}

// What the sandbox kept from being writable is said once, a line each,
// after the tier's own line, in every mode but unrestricted.
TEST(ToolSandbox, TheNoticeNamesWhatWasKeptFromBeingWritable) {
  sandbox::Settings settings;
  settings.refused = {
      "TMPDIR=/home/u is not writable: it is your home directory; tools get /tmp "
      "instead",
      "sandbox.writable_roots: ~ is left out: it is your home directory"};
  auto tier1 = sandbox::Sandbox::Create(settings, {7, false, "user namespaces are off"});
  ASSERT_TRUE(tier1) << tier1.error();
  const std::vector<std::string> lines = NoticeLines(SandboxNotice(**tier1, Mode::kAsk));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("tier 1 only"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1],
            "Note: sandbox: TMPDIR=/home/u is not writable: it is your home directory; tools get "
            "/tmp instead.");
  EXPECT_EQ(lines[2],
            "Note: sandbox: sandbox.writable_roots: ~ is left out: it is your home directory.");
  auto tier2 = sandbox::Sandbox::Create(settings, {7, true, ""});
  ASSERT_TRUE(tier2);
  EXPECT_EQ(NoticeLines(SandboxNotice(**tier2, Mode::kAuto)).size(), 2u);
  EXPECT_EQ(SandboxNotice(**tier2, Mode::kUnrestricted), "");
  EXPECT_TRUE(NoticeLines("").empty());
}

TEST(ToolSandbox, TheSummaryNamesTheModeAndWhatTheSandboxAllows) {
  auto tier2 = WithSupport(7, true);
  const std::string ask = PermissionsSummary(Mode::kAsk, tier2.get());
  EXPECT_NE(ask.find("Permission mode: ask"), std::string::npos) << ask;
  EXPECT_NE(ask.find("Sandbox: tier 2"), std::string::npos) << ask;
  EXPECT_NE(ask.find("writable: /tmp/ikigai-tool-sandbox-test"), std::string::npos) << ask;
  const std::string read_only = PermissionsSummary(Mode::kReadOnly, tier2.get());
  EXPECT_NE(read_only.find("In read-only mode only /tmp are writable"), std::string::npos)
      << read_only;
  EXPECT_NE(PermissionsSummary(Mode::kUnrestricted, tier2.get()).find("No sandbox"),
            std::string::npos);
}

TEST(ToolSandbox, WritableRootsMustBeAbsolute) {
  config::Config config;
  config.sandbox.writable_roots = {"relative/dir"};
  auto made = MakeSandbox(config);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().find("'relative/dir' is not an absolute path"), std::string::npos)
      << made.error();
  config.sandbox.writable_roots = {"/tmp"};
  EXPECT_TRUE(MakeSandbox(config));
}

}  // namespace
}  // namespace ikigai::session
