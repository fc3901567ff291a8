#include "skills/catalog.h"

#include <sys/stat.h>

#include <map>

#include <gtest/gtest.h>

#include "testing/tool_runner.h"

namespace ikigai::skills {
namespace {

using ikigai::testing::TempDir;
using ikigai::testing::WriteFile;

void WriteSkill(const std::string& root, const std::string& folder, const std::string& text) {
  ::mkdir(root.c_str(), 0755);
  ::mkdir((root + "/" + folder).c_str(), 0755);
  WriteFile(root + "/" + folder + "/SKILL.md", text);
}

std::string Md(const std::string& name, const std::string& description) {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\nBody of " + name + "\n";
}

TEST(CatalogTest, ProjectOverridesUserOverridesSystem) {
  TempDir dir;
  const std::string system = dir / "system", user = dir / "user", agents = dir / "agents",
                    project = dir / "project";
  WriteSkill(system, "shared", Md("shared", "from the system"));
  WriteSkill(system, "only-system", Md("only-system", "system's own"));
  WriteSkill(user, "shared", Md("shared", "from the user"));
  WriteSkill(user, "mine", Md("mine", "the user's"));
  WriteSkill(agents, "other-agent", Md("other-agent", "kept for another agent"));
  WriteSkill(project, "mine", Md("mine", "the project's"));
  const Catalog catalog = DiscoverSkills({{system}, {user, agents}, {project}});
  ASSERT_EQ(catalog.skills().size(), 4u);
  EXPECT_TRUE(catalog.problems().empty());
  ASSERT_NE(catalog.Find("shared"), nullptr);
  EXPECT_EQ(catalog.Find("shared")->description, "from the user");
  EXPECT_EQ(catalog.Find("shared")->level, Level::kUser);
  EXPECT_EQ(catalog.Find("mine")->description, "the project's");
  EXPECT_EQ(catalog.Find("mine")->level, Level::kProject);
  EXPECT_EQ(catalog.Find("mine")->dir, project + "/mine");
  EXPECT_EQ(catalog.Find("only-system")->level, Level::kSystem);
  EXPECT_EQ(catalog.Find("other-agent")->level, Level::kUser);
  // Without the project level (an untrusted folder), the user's wins.
  const Catalog untrusted = DiscoverSkills({{system}, {user, agents}, {}});
  EXPECT_EQ(untrusted.Find("mine")->description, "the user's");
}

TEST(CatalogTest, BadSkillsAreLeftOutWithTheirReason) {
  TempDir dir;
  const std::string ikigai = dir / "ikigai", agents = dir / "agents";
  WriteSkill(ikigai, "good", Md("good", "fine"));
  WriteSkill(ikigai, "no-front-matter", "# Only markdown\n");
  WriteSkill(ikigai, "nameless", "---\ndescription: d\n---\n");
  WriteSkill(ikigai, "folder", Md("other-name", "d"));
  WriteSkill(agents, "good", Md("good", "the same name at the same level"));
  ::mkdir((ikigai + "/not-a-skill").c_str(), 0755);  // no SKILL.md: not reported
  WriteSkill(ikigai, ".hidden", Md(".hidden", "d"));
  const Catalog catalog = DiscoverSkills({{}, {ikigai, agents}, {}});
  ASSERT_EQ(catalog.skills().size(), 1u);
  EXPECT_EQ(catalog.skills()[0].description, "fine");
  ASSERT_EQ(catalog.problems().size(), 4u);
  std::map<std::string, std::string> reasons;
  for (const auto& problem : catalog.problems()) reasons[problem.name] = problem.reason;
  EXPECT_EQ(reasons["no-front-matter"], "no front matter (SKILL.md must start with a line ---)");
  EXPECT_EQ(reasons["nameless"], "no name in the front matter");
  EXPECT_EQ(reasons["folder"],
            "its name 'other-name' is not its folder's name 'folder'; rename one of them");
  EXPECT_EQ(reasons["good"],
            "same name as " + ikigai + "/good at the same level (user); that one is used");
}

TEST(CatalogTest, TheSameDirectoryTwiceIsReadOnceAndMissingOnesAreNothing) {
  TempDir dir;
  WriteSkill(dir / "skills", "one", Md("one", "d"));
  const Catalog catalog =
      DiscoverSkills({{dir / "missing"}, {dir / "skills"}, {dir / "skills", dir / "x/../skills"}});
  ASSERT_EQ(catalog.skills().size(), 1u);
  EXPECT_EQ(catalog.skills()[0].level, Level::kUser);
  EXPECT_TRUE(catalog.problems().empty());
}

TEST(CatalogTest, SkillNames) {
  EXPECT_TRUE(IsValidSkillName("pdf-tools"));
  EXPECT_TRUE(IsValidSkillName("My_Skill.v2"));
  EXPECT_FALSE(IsValidSkillName(""));
  EXPECT_FALSE(IsValidSkillName("with space"));
  EXPECT_FALSE(IsValidSkillName(std::string(65, 'a')));
}

}  // namespace
}  // namespace ikigai::skills
