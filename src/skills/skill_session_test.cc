#include "skills/skill_session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "testing/tool_runner.h"

namespace ikigai::skills {
namespace {

using ikigai::testing::TempDir;
using ikigai::testing::WriteFile;
using Json = nlohmann::ordered_json;

std::vector<std::string> Names(const registry::Registry& registry) {
  std::vector<std::string> names;
  for (const auto& tool : registry.tools()) names.push_back(tool.name);
  return names;
}

class SkillSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_ / "skills";
    ::mkdir(root_.c_str(), 0755);
    MakeSkill("greeter", "Greets people.", "# Greeter\nSay hello. See notes/style.md.\n");
    ::mkdir((root_ + "/greeter/notes").c_str(), 0755);
    WriteFile(root_ + "/greeter/notes/style.md", "warm\n");
    ::mkdir((root_ + "/greeter/tools").c_str(), 0755);
    WriteTool("greeter", "greet", "greet");
    WriteTool("greeter", "bash", "bash");  // a core tool's name: left out
    WriteFile(root_ + "/greeter/tools/broken-tool", "#!/bin/sh\nexit 3\n", 0755);
    MakeSkill("plain", "No tools.", "Plain body.\n");
  }

  void MakeSkill(const std::string& name, const std::string& description, const std::string& body) {
    ::mkdir((root_ + "/" + name).c_str(), 0755);
    WriteFile(root_ + "/" + name + "/SKILL.md",
              "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body);
  }
  void WriteTool(const std::string& skill, const std::string& file, const std::string& name) {
    WriteFile(root_ + "/" + skill + "/tools/" + file + "-tool",
              "#!/bin/sh\nif [ \"$1\" = --schema ]; then echo '{\"name\": \"" + name +
                  "\", \"description\": \"d\", \"parameters\": {\"type\": \"object\", "
                  "\"properties\": {}, \"required\": []}}'; exit 0; fi\necho '{\"ok\": 1}'\n",
              0755);
  }

  std::shared_ptr<SkillSession> Session() {
    return std::make_shared<SkillSession>(DiscoverSkills({{}, {root_}, {}}),
                                          discovery::DiscoveryOptions{});
  }

  TempDir dir_;
  std::string root_;
};

TEST_F(SkillSessionTest, TheSkillToolIsAddedOnlyWhenThereAreSkills) {
  registry::Tool core;
  core.name = "bash";
  core.path = "/bin/bash-tool";
  core.source = registry::Source::kSystem;
  const auto base = std::make_shared<const registry::Registry>(
      std::vector{core}, std::vector<registry::DiscoveryFailure>{});
  const auto with = Session()->WithSkillTools(base);
  EXPECT_EQ(Names(*with), (std::vector<std::string>{"bash", "skill"}));
  EXPECT_EQ(with->Find("skill")->source, registry::Source::kHost);
  EXPECT_EQ(with->Find("skill")->schema.annotations["readOnlyHint"], true);
  const SkillSession none(Catalog(), {});
  EXPECT_EQ(Names(*none.WithSkillTools(base)), (std::vector<std::string>{"bash"}));
}

TEST_F(SkillSessionTest, LoadingReturnsTheBodyFolderAndFilesAndOffersTheSkillsTools) {
  auto session = Session();
  registry::Tool core;
  core.name = "bash";
  core.path = "/bin/bash-tool";
  core.source = registry::Source::kSystem;
  registry::RegistryHolder holder;
  holder.Set(session->WithSkillTools(std::make_shared<const registry::Registry>(
      std::vector{core}, std::vector<registry::DiscoveryFailure>{})));
  session->Attach(&holder);
  EXPECT_FALSE(session->IsLoaded("greeter"));
  EXPECT_EQ(Names(*holder.Get()), (std::vector<std::string>{"bash", "skill"}));

  const Json result = session->Load("greeter");
  EXPECT_EQ(result["name"], "greeter");
  EXPECT_EQ(result["path"], root_ + "/greeter");
  EXPECT_EQ(result["instructions"], "# Greeter\nSay hello. See notes/style.md.\n");
  EXPECT_EQ(result["files"], Json({"SKILL.md", "notes/style.md", "tools/bash-tool",
                                   "tools/broken-tool", "tools/greet-tool"}));
  EXPECT_EQ(result["tools"], Json({"greet"}));
  ASSERT_EQ(result["tool_problems"].size(), 2u) << result.dump(2);
  EXPECT_EQ(result["tool_problems"][0]["tool"], "bash");
  EXPECT_EQ(result["tool_problems"][1]["tool"], "broken");
  EXPECT_EQ(result["tool_problems"][1]["reason"], "exit code 3");
  EXPECT_NE(result["note"].get<std::string>().find("The skill's tools are now available: greet"),
            std::string::npos);
  EXPECT_TRUE(session->IsLoaded("greeter"));
  EXPECT_EQ(Names(*holder.Get()), (std::vector<std::string>{"bash", "greet", "skill"}));
  const registry::Tool* greet = holder.Get()->Find("greet");
  EXPECT_EQ(greet->path, root_ + "/greeter/tools/greet-tool");
  EXPECT_EQ(greet->source, registry::Source::kUser);

  // Loading again gives the body again; the tools stay as they were found.
  EXPECT_EQ(session->Load("greeter")["tools"], Json({"greet"}));
  // A registry built again (a refresh) gets them back.
  const auto rebuilt = session->WithSkillTools(std::make_shared<const registry::Registry>(
      std::vector{core}, std::vector<registry::DiscoveryFailure>{}));
  EXPECT_EQ(Names(*rebuilt), (std::vector<std::string>{"bash", "greet", "skill"}));
  session->Attach(nullptr);
}

// A user keeps a skill where they like and links it in: it loads, as it is
// listed (only a project's skills are held inside their folder).
TEST_F(SkillSessionTest, AUsersLinkedSkillLoads) {
  ::mkdir((dir_ / "elsewhere").c_str(), 0755);
  ::mkdir((dir_ / "elsewhere/linked").c_str(), 0755);
  WriteFile(dir_ / "elsewhere/linked/SKILL.md",
            "---\nname: linked\ndescription: Kept elsewhere.\n---\nLinked body.\n");
  ASSERT_EQ(::symlink((dir_ / "elsewhere/linked").c_str(), (root_ + "/linked").c_str()), 0);
  const Json result = Session()->Load("linked");
  EXPECT_EQ(result.value("instructions", ""), "Linked body.\n") << result.dump(2);
}

TEST_F(SkillSessionTest, UnknownSkillsAndBadArgumentsAreErrorsTheModelCanActOn) {
  auto session = Session();
  const registry::Tool tool = SkillTool();
  const Json unknown = session->Call(tool, {{"name", "nope"}}, -1);
  EXPECT_EQ(unknown["tool_success"], true);
  EXPECT_EQ(unknown["result"]["error_code"], "SKILL_NOT_FOUND");
  EXPECT_EQ(unknown["result"]["error"],
            "No skill is named 'nope'. The skills are: greeter, plain.");
  const Json bad = session->Call(tool, {{"skill", "greeter"}}, -1);
  EXPECT_EQ(bad["tool_success"], false);
  EXPECT_EQ(bad["error_code"], "INVALID_PARAMS");
  // A SKILL.md broken since the start.
  WriteFile(root_ + "/plain/SKILL.md", "no longer a skill\n");
  const Json broken = session->Call(tool, {{"name", "plain"}}, -1);
  EXPECT_EQ(broken["result"]["error_code"], "SKILL_UNREADABLE");
  EXPECT_FALSE(session->IsLoaded("plain"));
}

TEST_F(SkillSessionTest, LongInstructionsAreCutWhereALineEnds) {
  std::string body;
  while (body.size() < kMaxInstructions + 1000) body += "a line of the instructions\n";
  MakeSkill("long", "Long.", body);
  SkillSession session(DiscoverSkills({{}, {root_}, {}}), {});
  const Json result = session.Load("long");
  const std::string text = result["instructions"];
  EXPECT_LE(text.size(), kMaxInstructions);
  EXPECT_TRUE(text.ends_with("instructions")) << text.substr(text.size() - 40);
  EXPECT_NE(result["instructions_truncated"].get<std::string>().find("file_read"),
            std::string::npos);
}

}  // namespace
}  // namespace ikigai::skills
