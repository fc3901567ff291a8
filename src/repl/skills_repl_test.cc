// The REPL's /skills and /skill, end to end: the real `ikigai` in a
// pseudo-terminal against aimock.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "providers/testing/aimock_server.h"
#include "repl/testing/pty_session.h"
#include "testing/tool_runner.h"

namespace ikigai::repl {
namespace {

using ikigai::testing::TempDir;
using ikigai::testing::WriteFile;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::PtyOptions;
using testing::PtySession;
using Env = std::vector<std::pair<std::string, std::string>>;

const std::string kIkigai = IKIGAI_BIN;

constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"userMessage": "skill-repl-go"}, "response": {"content": "Using it."}}
]})";

class SkillsReplTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    std::filesystem::create_directories(dir_ / "home/.ikigai/skills/greeter/tools");
    std::filesystem::create_directories(dir_ / "home/.agents/skills/notes");
    std::filesystem::create_directories(dir_ / "home/.ikigai/skills/broken");
    std::filesystem::create_directories(dir_ / "project");
    WriteFile(dir_ / "home/.ikigai/skills/greeter/SKILL.md",
              "---\nname: greeter\ndescription: >\n  Greets people\n  by name.\n---\n"
              "REPL-BODY-4410 greet them.\n");
    WriteFile(dir_ / "home/.ikigai/skills/greeter/tools/greet-tool",
              "#!/bin/sh\nif [ \"$1\" = --schema ]; then echo '{\"name\": \"greet\", "
              "\"description\": \"d\", \"parameters\": {\"type\": \"object\", \"properties\": "
              "{}, \"required\": []}}'; fi\n",
              0755);
    WriteFile(dir_ / "home/.agents/skills/notes/SKILL.md",
              "---\nname: notes\ndescription: 'Takes notes.'\n---\nbody\n");
    WriteFile(dir_ / "home/.ikigai/skills/broken/SKILL.md", "no front matter\n");
  }

  Env Environment() const {
    const char* path = std::getenv("PATH");
    return {{"PATH", path != nullptr ? path : "/usr/bin:/bin"},
            {"HOME", dir_ / "home"},
            {"XDG_CACHE_HOME", dir_ / "cache"},
            {"TERM", "xterm-256color"},
            {"LANG", "C.UTF-8"},
            {"NO_PROXY", "127.0.0.1"},
            {"IKIGAI_PERMISSIONS", "auto"},
            {"OPENAI_API_KEY", AimockServer::kApiKey},
            {"OPENAI_BASE_URL", aimock_->openai_base_url()}};
  }

  TempDir dir_;
  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
};

TEST_F(SkillsReplTest, SkillsListsThemAndSkillLoadsOneForTheNextMessage) {
  auto started =
      PtySession::Start(kIkigai, PtyOptions{.args = {"--provider", "openai", "--model", "gpt-4.1"},
                                            .env = Environment(),
                                            .cwd = dir_ / "project"});
  ASSERT_TRUE(started) << started.error();
  auto& repl = **started;
  ASSERT_TRUE(repl.Expect("> ")) << repl.Plain();
  ASSERT_TRUE(
      repl.Expect("Debug: skill 'broken' left out (~/.ikigai/skills/broken/SKILL.md): "
                  "no front matter"))
      << repl.Plain();
  repl.Send("/skills\r");
  ASSERT_TRUE(
      repl.Expect("Skills:\n  greeter (user) ~/.ikigai/skills/greeter\n"
                  "      Greets people by name.\n"
                  "  notes (user) ~/.agents/skills/notes\n      Takes notes.\n"))
      << repl.Plain();
  repl.Send("/skill nope\r");
  ASSERT_TRUE(repl.Expect("No skill is named 'nope'. The skills are: greeter, notes."))
      << repl.Plain();
  repl.Send("/skill greeter\r");
  ASSERT_TRUE(
      repl.Expect("Loaded skill greeter (~/.ikigai/skills/greeter): its instructions go "
                  "to the model with your next message; its tools are offered: greet."))
      << repl.Plain();
  repl.Send("/skills\r");
  ASSERT_TRUE(repl.Expect("  greeter (user, loaded) ~/.ikigai/skills/greeter")) << repl.Plain();
  repl.Send("skill-repl-go\r");
  ASSERT_TRUE(repl.Expect("Using it.")) << repl.Plain();
  repl.Send("/quit\r");
  EXPECT_EQ(repl.Wait(), 0);

  auto journal = aimock_->Journal();
  ASSERT_TRUE(journal) << journal.error();
  ASSERT_EQ(journal->size(), 1u);
  const nlohmann::json& body = journal->back()["body"];
  const std::string user = body["messages"].back()["content"];
  EXPECT_NE(user.find("REPL-BODY-4410"), std::string::npos) << user;
  EXPECT_TRUE(user.ends_with("skill-repl-go")) << user;
  std::vector<std::string> tools;
  for (const auto& tool : body["tools"]) tools.push_back(tool["function"]["name"]);
  EXPECT_NE(std::find(tools.begin(), tools.end(), "greet"), tools.end());
  EXPECT_NE(std::find(tools.begin(), tools.end(), "skill"), tools.end());
}

}  // namespace
}  // namespace ikigai::repl
