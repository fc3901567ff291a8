#include "toolcmd/tool_check.h"

#include <gtest/gtest.h>

#include <sstream>

#include "base/utf8.h"
#include "testing/tool_runner.h"

namespace ikigai::toolcmd {
namespace {

using testing::TempDir;
using testing::WriteFile;

const executor::Limits kLimits{std::chrono::milliseconds(10000), 64 * 1024, 8 * 1024};

TEST(ToolCheck, EveryCoreToolKeepsEveryRule) {
  for (const char* tool : {"bash", "file-read", "file-write", "file-edit", "glob", "grep"}) {
    std::ostringstream out;
    EXPECT_EQ(CheckTools({testing::ToolPath(tool)}, kLimits, out), 0) << out.str();
    EXPECT_NE(out.str().find("rules kept."), std::string::npos) << out.str();
  }
}

TEST(ToolCheck, TheDocumentedExamplesKeepEveryRule) {
  // A first Python start on a loaded 2-core machine can take seconds: the
  // deadline is a user's schema_timeout_ms of 10 s here (the 1 s rule
  // itself is tested with a tool that sleeps).
  std::ostringstream out;
  EXPECT_EQ(CheckTools({std::string(IKIGAI_EXAMPLES_DIR) + "/word-count-tool",
                        std::string(IKIGAI_EXAMPLES_DIR) + "/disk-usage-tool"},
                       kLimits, out, std::chrono::milliseconds(10000)),
            0)
      << out.str();
}

std::string Broken(const std::vector<RuleResult>& results) {
  std::string s;
  for (const auto& r : results) {
    if (!r.kept) s += r.rule + "; ";
  }
  return s;
}

TEST(ToolCheck, ReportsEachBrokenRule) {
  TempDir dir;
  // Prints a bad schema under another name, crashes on {}, and answers
  // malformed input with plain text.
  WriteFile(dir / "bad-tool",
            "#!/bin/sh\n"
            "if [ \"$1\" = --schema ]; then echo '{\"name\": \"other\", \"description\": \"d\", "
            "\"parameters\": {\"type\": \"object\", \"properties\": {}}}'; exit 0; fi\n"
            "input=$(cat)\n"
            "[ \"$input\" = '{}' ] && exit 1\n"
            "echo oops\n",
            0755);
  const std::string broken = Broken(CheckTool(dir / "bad-tool", kLimits));
  EXPECT_NE(broken.find("schema name matches the file name"), std::string::npos) << broken;
  EXPECT_NE(broken.find("answers {} with one JSON object"), std::string::npos) << broken;
  EXPECT_NE(broken.find("answers malformed input with a JSON error"), std::string::npos) << broken;
  EXPECT_EQ(broken.find("--schema answers within 1 s"), std::string::npos) << broken;
  std::ostringstream out;
  EXPECT_EQ(CheckTools({dir / "bad-tool"}, kLimits, out), 1);
  EXPECT_NE(out.str().find("  FAIL  "), std::string::npos);
}

// What a broken tool prints is quoted in the report: shown, never obeyed by
// the terminal (a title, a cleared screen), and cut at a character.
TEST(ToolCheck, ATerminalNeverObeysWhatTheToolPrinted) {
  TempDir dir;
  WriteFile(
      dir / "loud-tool",
      "#!/bin/sh\n"
      "if [ \"$1\" = --schema ]; then echo '{\"name\": \"loud\", \"description\": \"d\", "
      "\"parameters\": {\"type\": \"object\", \"properties\": {}}}'; exit 0; fi\n"
      "cat > /dev/null; printf '\\033]0;PWNED\\007\\033[2J'; printf '\\303\\251%.0s' $(seq 300)\n",
      0755);
  std::ostringstream out;
  EXPECT_EQ(CheckTools({dir / "loud-tool"}, kLimits, out), 1);
  EXPECT_EQ(out.str().find('\x1b'), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find('\x07'), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\\x1b]0;PWNED"), std::string::npos) << out.str();
  EXPECT_TRUE(utf8::IsValid(out.str()));
  EXPECT_EQ(out.str().find(utf8::kReplacement), std::string::npos) << "cut inside a character";
}

TEST(ToolCheck, SlowAndLargeSchemasAndBadFilesAreBroken) {
  TempDir dir;
  WriteFile(dir / "slow-tool", "#!/bin/sh\nsleep 5\n", 0755);
  EXPECT_NE(Broken(CheckTool(dir / "slow-tool", kLimits)).find("--schema answers within 1 s"),
            std::string::npos);
  WriteFile(dir / "big-tool", "#!/bin/sh\nhead -c 9000 /dev/zero | tr '\\0' x\n", 0755);
  EXPECT_NE(Broken(CheckTool(dir / "big-tool", kLimits)).find("--schema output within 8 KB"),
            std::string::npos);
  WriteFile(dir / "noexec-tool", "#!/bin/sh\n", 0644);
  EXPECT_NE(Broken(CheckTool(dir / "noexec-tool", kLimits)).find("executable"), std::string::npos);
  WriteFile(dir / "nosuffix", "#!/bin/sh\n", 0755);
  EXPECT_NE(Broken(CheckTool(dir / "nosuffix", kLimits)).find("ends in -tool"), std::string::npos);
}

}  // namespace
}  // namespace ikigai::toolcmd
