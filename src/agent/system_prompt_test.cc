// The system prompt: ikigai's default, and the project's AGENTS.md after it.
#include "agent/system_prompt.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/tool_runner.h"

namespace ikigai::agent {
namespace {

using testing::TempDir;

TEST(SystemPromptTest, TheDefaultTeachesTheToolsAndBash) {
  const std::string prompt = DefaultSystemPrompt();
  EXPECT_TRUE(prompt.starts_with("You are ikigai")) << prompt;
  for (const char* word :
       {"tool_success", "TOOL_TIMEOUT", "TOOL_NOT_FOUND", "file_read", "file_edit", "file_write",
        "glob", "grep", "bash fundamentals", "git status", "no terminal"}) {
    EXPECT_NE(prompt.find(word), std::string::npos) << word;
  }
}

TEST(SystemPromptTest, TheProjectsAgentsMdIsAppended) {
  TempDir project;
  testing::WriteFile(project / "AGENTS.md", "Run make test before every commit.\n");
  EXPECT_EQ(ComposeSystemPrompt("BASE PROMPT", project.path()).text,
            "BASE PROMPT\n\n# Project instructions (AGENTS.md)\nRun make test before every "
            "commit.\n");
  const std::string composed = ComposeSystemPrompt(DefaultSystemPrompt(), project.path()).text;
  EXPECT_TRUE(composed.starts_with(DefaultSystemPrompt()));
  EXPECT_TRUE(composed.ends_with("Run make test before every commit.\n"));
}

TEST(SystemPromptTest, WithoutAgentsMdThePromptIsUnchanged) {
  TempDir project;
  EXPECT_EQ(ComposeSystemPrompt("BASE PROMPT", project.path()).text, "BASE PROMPT");
  EXPECT_EQ(ComposeSystemPrompt("BASE PROMPT", project / "missing-dir").text, "BASE PROMPT");
  EXPECT_EQ(ComposeSystemPrompt("BASE PROMPT", project.path()).problem, "");
}

// A cloned repository decides what AGENTS.md is. Each of these once hung
// ikigai, exhausted its memory or could send a private file to the provider.
TEST(SystemPromptTest, AFifoNamedAgentsMdIsLeftOutWithoutBlocking) {
  TempDir project;
  ASSERT_EQ(::mkfifo((project / "AGENTS.md").c_str(), 0600), 0);
  const ComposedPrompt composed = ComposeSystemPrompt("BASE", project.path());
  EXPECT_EQ(composed.text, "BASE");
  EXPECT_NE(composed.problem.find("a FIFO, not a regular file"), std::string::npos)
      << composed.problem;
}

TEST(SystemPromptTest, AgentsMdLinkedToADeviceIsLeftOut) {
  TempDir project;
  std::filesystem::create_symlink("/dev/zero", project / "AGENTS.md");
  const ComposedPrompt composed = ComposeSystemPrompt("BASE", project.path());
  EXPECT_EQ(composed.text, "BASE");
  EXPECT_NE(composed.problem.find("outside the project"), std::string::npos) << composed.problem;
}

TEST(SystemPromptTest, AgentsMdLinkedOutsideTheProjectIsNotRead) {
  TempDir project, elsewhere;
  testing::WriteFile(elsewhere / "id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
  std::filesystem::create_symlink(elsewhere / "id_rsa", project / "AGENTS.md");
  const ComposedPrompt composed = ComposeSystemPrompt("BASE", project.path());
  EXPECT_EQ(composed.text, "BASE");
  EXPECT_EQ(composed.text.find("PRIVATE KEY"), std::string::npos);
  EXPECT_NE(composed.problem.find("leads outside the project"), std::string::npos)
      << composed.problem;
}

TEST(SystemPromptTest, AgentsMdLinkedInsideTheProjectIsRead) {
  TempDir project;
  std::filesystem::create_directories(project / "docs");
  testing::WriteFile(project / "docs/agents.md", "Use tabs.\n");
  std::filesystem::create_symlink("docs/agents.md", project / "AGENTS.md");
  EXPECT_TRUE(ComposeSystemPrompt("BASE", project.path()).text.ends_with("Use tabs.\n"));
}

TEST(SystemPromptTest, AHugeAgentsMdIsCutWithANote) {
  TempDir project;
  testing::WriteFile(project / "AGENTS.md", "Start here.\n");
  std::filesystem::resize_file(project / "AGENTS.md", 100 * 1024 * 1024);  // 100 MB, sparse
  const ComposedPrompt composed = ComposeSystemPrompt("BASE", project.path());
  EXPECT_LT(composed.text.size(), kMaxAgentsMd + 1024);
  EXPECT_NE(composed.text.find("[AGENTS.md was cut at 256 KB of 102400 KB"), std::string::npos);
  EXPECT_NE(composed.problem.find("larger than 256 KB"), std::string::npos) << composed.problem;
}

}  // namespace
}  // namespace ikigai::agent
