// The system prompt: ikigai's default, and the project's AGENTS.md after it.
#include "agent/system_prompt.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(ComposeSystemPrompt("BASE PROMPT", project.path()),
            "BASE PROMPT\n\n# Project instructions (AGENTS.md)\nRun make test before every "
            "commit.\n");
  const std::string composed = ComposeSystemPrompt(DefaultSystemPrompt(), project.path());
  EXPECT_TRUE(composed.starts_with(DefaultSystemPrompt()));
  EXPECT_TRUE(composed.ends_with("Run make test before every commit.\n"));
}

TEST(SystemPromptTest, WithoutAgentsMdThePromptIsUnchanged) {
  TempDir project;
  EXPECT_EQ(ComposeSystemPrompt("BASE PROMPT", project.path()), "BASE PROMPT");
  EXPECT_EQ(ComposeSystemPrompt("BASE PROMPT", project / "missing-dir"), "BASE PROMPT");
}

}  // namespace
}  // namespace ikigai::agent
