#include "session/skill_listing.h"

#include "base/visible_text.h"
#include "session/host_context.h"
#include "skills/prompt_section.h"

namespace ikigai::session {
namespace {

std::string V(const std::string& text) { return VisibleText(text, Layout::kOneLine); }

}  // namespace

std::vector<std::string> SkillProblemLines(const skills::Catalog& catalog) {
  std::vector<std::string> lines;
  for (const skills::SkillProblem& problem : catalog.problems()) {
    lines.push_back("skill '" + V(problem.name) + "' left out (" + V(DisplayPath(problem.path)) +
                    "): " + V(problem.reason));
  }
  return lines;
}

std::string SkillsListing(const skills::SkillSession& skills) {
  const auto catalog = skills.catalog();
  std::string text;
  if (catalog->skills().empty()) {
    text =
        "No skills. A skill is a folder with a SKILL.md in ./.ikigai/skills/, ./.agents/skills/, "
        "~/.ikigai/skills/ or ~/.agents/skills/ (see docs/skills.md).\n";
  } else {
    text = "Skills:\n";
    for (const skills::Skill& skill : catalog->skills()) {
      text += "  " + V(skill.name) + " (" + std::string(skills::LevelName(skill.level)) +
              (skills.IsLoaded(skill.name) ? ", loaded" : "") + ") " + V(DisplayPath(skill.dir)) +
              "\n";
      std::string description = skills::OneLineDescription(skill.description);
      constexpr std::size_t kShown = 160;
      if (description.size() > kShown) description = description.substr(0, kShown) + "...";
      text += "      " + V(description) + "\n";
    }
    text += "Load one with /skill NAME; the model loads them with the skill tool.\n";
  }
  for (const std::string& line : SkillProblemLines(*catalog)) text += "Debug: " + line + "\n";
  return text;
}

}  // namespace ikigai::session
