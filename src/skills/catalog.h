// Finding skills (DECISIONS §11): folders holding a SKILL.md, in five
// directories at three levels of increasing precedence:
//   system   <prefix>/share/ikigai/skills
//   user     ~/.ikigai/skills, ~/.agents/skills
//   project  ./.ikigai/skills, ./.agents/skills (only in a trusted folder:
//            the caller leaves them out otherwise)
// A project skill replaces a user's of the same name, which replaces a
// system one. Only the front matter is read here (front_matter.h); the body
// and the skill's tools/ wait until the skill is loaded (skill_session.h).
//
// A skill is left out, with its reason, when its SKILL.md cannot be read or
// parsed, when its `name` is not its folder's name, or when another folder
// of the same level (.ikigai/skills and .agents/skills) already has the
// name: the first found is kept. A folder without SKILL.md is not a skill
// and is passed over in silence; so are hidden entries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ikigai::skills {

enum class Level { kSystem, kUser, kProject };

std::string_view LevelName(Level level);  // "system", "user", "project"

struct Skill {
  std::string name;         // the folder's name, which SKILL.md's name repeats
  std::string description;  // from the front matter, as written
  std::string dir;          // the skill's folder, absolute
  Level level = Level::kSystem;
};

struct SkillProblem {
  std::string name;  // the folder's name
  std::string path;  // its SKILL.md
  std::string reason;
};

struct SkillDirectories {
  std::vector<std::string> system;   // each may not exist
  std::vector<std::string> user;     // in order: the first wins a name at its level
  std::vector<std::string> project;  // empty when the folder is not trusted
};

// The five directories above; the system one next to the running binary
// (<bin>/../share/ikigai/skills) when it exists, else under the compiled-in
// prefix.
SkillDirectories DefaultSkillDirectories();

// SKILL.md files larger than this are not skills.
inline constexpr std::size_t kMaxSkillFile = 256 * 1024;

class Catalog {
 public:
  Catalog() = default;
  Catalog(std::vector<Skill> skills, std::vector<SkillProblem> problems);

  const std::vector<Skill>& skills() const { return skills_; }  // sorted by name
  const std::vector<SkillProblem>& problems() const { return problems_; }
  const Skill* Find(std::string_view name) const;

 private:
  std::vector<Skill> skills_;
  std::vector<SkillProblem> problems_;
};

Catalog DiscoverSkills(const SkillDirectories& dirs);

// Whether a skill name can be used: 1 to 64 letters, digits, '-', '_', '.'
// (Agent Skills use lowercase letters, digits and hyphens).
bool IsValidSkillName(std::string_view name);

}  // namespace ikigai::skills
