#include "skills/prompt_section.h"

#include <gtest/gtest.h>

namespace ikigai::skills {
namespace {

TEST(PromptSectionTest, NamesAndDescriptionsOnly) {
  const Catalog catalog({{"beta", "Does beta\n  things.", "/s/beta", Level::kSystem},
                         {"alpha", "Does alpha.", "/p/alpha", Level::kProject}},
                        {});
  const PromptSection section = ComposePromptSection(catalog, PromptBudget(128'000));
  EXPECT_TRUE(section.text.starts_with("\n\n# Skills\n")) << section.text;
  // Project skills first, then the user's, then the system's.
  const auto alpha = section.text.find("- alpha: Does alpha.\n");
  const auto beta = section.text.find("- beta: Does beta things.\n");
  ASSERT_NE(alpha, std::string::npos) << section.text;
  ASSERT_NE(beta, std::string::npos) << section.text;
  EXPECT_LT(alpha, beta);
  EXPECT_EQ(section.text.find("/p/alpha"), std::string::npos) << "no paths, no bodies";
  EXPECT_TRUE(section.left_out.empty());
  EXPECT_TRUE(section.warning.empty());
}

TEST(PromptSectionTest, NoSkillsNoSection) {
  const PromptSection section = ComposePromptSection(Catalog(), PromptBudget(128'000));
  EXPECT_TRUE(section.text.empty());
  EXPECT_TRUE(section.warning.empty());
}

TEST(PromptSectionTest, SkillsPastTheBudgetAreLeftOutAndNamed) {
  EXPECT_EQ(PromptBudget(128'000), 10'240u);  // 2% of 128k tokens, 4 bytes a token
  std::vector<Skill> skills;
  for (int i = 0; i < 30; ++i) {
    const std::string name = "skill-" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    skills.push_back({name, std::string(200, 'd'), "/u/" + name, Level::kUser});
  }
  skills.push_back({"from-project", "Project's.", "/p/from-project", Level::kProject});
  const PromptSection section = ComposePromptSection(Catalog(skills, {}), 2000);
  EXPECT_LE(section.text.size(), 2000u + 200u);  // and the line that says more exist
  EXPECT_NE(section.text.find("- from-project: Project's."), std::string::npos);
  ASSERT_FALSE(section.left_out.empty());
  EXPECT_EQ(section.left_out.back(), "skill-29");
  EXPECT_NE(section.text.find("more skills are not listed here"), std::string::npos);
  EXPECT_NE(section.warning.find("skill-29"), std::string::npos) << section.warning;
  EXPECT_NE(section.warning.find("budget of 2000 bytes"), std::string::npos) << section.warning;
  EXPECT_EQ(section.warning.find("from-project"), std::string::npos) << section.warning;
}

TEST(PromptSectionTest, LongDescriptionsAreCut) {
  const std::string line = OneLineDescription(std::string(2000, 'x'));
  EXPECT_EQ(line.size(), 1024u + 3u);
  EXPECT_TRUE(line.ends_with("..."));
}

}  // namespace
}  // namespace ikigai::skills
