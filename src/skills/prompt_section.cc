#include "skills/prompt_section.h"

#include <algorithm>

#include "base/utf8.h"

namespace ikigai::skills {

std::size_t PromptBudget(long context_window_tokens) {
  if (context_window_tokens <= 0) return 0;
  return static_cast<std::size_t>(context_window_tokens) * 4 / 50;
}

std::string OneLineDescription(const std::string& description) {
  constexpr std::size_t kMax = 1024;
  std::string line;
  bool space = false;
  for (char c : description) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !line.empty();
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  if (line.size() > kMax) {
    line.resize(kMax);
    line = utf8::Repair(line);  // the cut may split a character
    line += "...";
  }
  return line;
}

PromptSection ComposePromptSection(const Catalog& catalog, std::size_t budget_bytes) {
  PromptSection section;
  if (catalog.skills().empty()) return section;
  std::vector<const Skill*> order;
  for (const Skill& skill : catalog.skills()) order.push_back(&skill);
  std::stable_sort(order.begin(), order.end(), [](const Skill* a, const Skill* b) {
    return static_cast<int>(a->level) > static_cast<int>(b->level);
  });
  std::string header =
      "\n\n# Skills\n"
      "Skills are folders of instructions (and sometimes tools and files) for particular "
      "tasks. When a task matches a skill's description, call the skill tool with its name "
      "before you start: it returns the instructions, the skill's folder and files, and from "
      "then on offers the skill's own tools.\n";
  std::string lines;
  std::size_t used = header.size();
  for (const Skill* skill : order) {
    std::string line = "- " + skill->name + ": " + OneLineDescription(skill->description) + "\n";
    if (used + line.size() > budget_bytes) {
      section.left_out.push_back(skill->name);
      continue;
    }
    used += line.size();
    lines += line;
  }
  if (!section.left_out.empty()) {
    lines += "(" + std::to_string(section.left_out.size()) +
             " more skills are not listed here; the skill tool loads any skill by name.)\n";
    std::string names;
    for (const std::string& name : section.left_out) names += (names.empty() ? "" : ", ") + name;
    section.warning = std::to_string(section.left_out.size()) +
                      " skill(s) left out of the system prompt, over its skills budget of " +
                      std::to_string(budget_bytes) +
                      " bytes (about 2% of the context window): " + names +
                      ". The model can still load them by name; shorten descriptions or remove "
                      "skills you do not use.";
  }
  section.text = header + lines;
  return section;
}

}  // namespace ikigai::skills
