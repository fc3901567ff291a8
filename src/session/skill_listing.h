// The skills as a user sees them: the REPL's /skills, and the lines that
// report skills left out (shown once at the start, like tools whose
// schema failed).
#pragma once

#include <string>
#include <vector>

#include "skills/skill_session.h"

namespace ikigai::session {

// "skill 'x' left out (~/.ikigai/skills/x/SKILL.md): no name in the front matter"
std::vector<std::string> SkillProblemLines(const skills::Catalog& catalog);

// /skills: each skill's name, level, whether it is loaded, its folder and
// its description; then the skills left out.
std::string SkillsListing(const skills::SkillSession& skills);

}  // namespace ikigai::session
