#include "skills/catalog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>

#include "base/bounded_file.h"
#include "skills/front_matter.h"

namespace ikigai::skills {
namespace {

std::string CurrentDirectory() {
  char* cwd = ::getcwd(nullptr, 0);
  if (cwd == nullptr) return ".";
  std::string dir(cwd);
  std::free(cwd);
  return dir;
}

std::string SystemSkillsDirectory() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path dir =
        (exe.parent_path() / ".." / "share" / "ikigai" / "skills").lexically_normal();
    if (std::filesystem::is_directory(dir, error)) return dir.string();
  }
  return std::string(IKIGAI_INSTALL_PREFIX) + "/share/ikigai/skills";
}

// The same directory named twice (ikigai started in $HOME: the project's
// skills are the user's) is read once, at the lower level.
std::string Identity(const std::string& dir) {
  std::error_code error;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(dir, error);
  return error ? dir : canonical.string();
}

}  // namespace

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kSystem:
      return "system";
    case Level::kUser:
      return "user";
    case Level::kProject:
      return "project";
  }
  return "?";
}

bool IsValidSkillName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

SkillDirectories DefaultSkillDirectories() {
  SkillDirectories dirs;
  dirs.system = {SystemSkillsDirectory()};
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dirs.user = {std::string(home) + "/.ikigai/skills", std::string(home) + "/.agents/skills"};
  }
  const std::string cwd = CurrentDirectory();
  dirs.project = {cwd + "/.ikigai/skills", cwd + "/.agents/skills"};
  return dirs;
}

Catalog::Catalog(std::vector<Skill> skills, std::vector<SkillProblem> problems)
    : skills_(std::move(skills)), problems_(std::move(problems)) {
  std::sort(skills_.begin(), skills_.end(),
            [](const Skill& a, const Skill& b) { return a.name < b.name; });
}

const Skill* Catalog::Find(std::string_view name) const {
  auto it = std::lower_bound(skills_.begin(), skills_.end(), name,
                             [](const Skill& skill, std::string_view n) { return skill.name < n; });
  if (it == skills_.end() || it->name != name) return nullptr;
  return &*it;
}

Catalog DiscoverSkills(const SkillDirectories& dirs) {
  std::map<std::string, Skill, std::less<>> winners;
  std::vector<SkillProblem> problems;
  std::vector<std::string> scanned;
  const std::pair<const std::vector<std::string>*, Level> levels[] = {
      {&dirs.system, Level::kSystem}, {&dirs.user, Level::kUser}, {&dirs.project, Level::kProject}};
  for (const auto& [level_dirs, level] : levels) {
    std::map<std::string, Skill, std::less<>> found;  // this level's skills
    for (const std::string& root : *level_dirs) {
      if (root.empty()) continue;
      // Relative roots (a test's) become absolute once: a skill's folder is
      // told to the model as an absolute path.
      const std::string absolute_root = std::filesystem::absolute(root).lexically_normal().string();
      std::string identity = Identity(root);
      if (std::find(scanned.begin(), scanned.end(), identity) != scanned.end()) continue;
      scanned.push_back(std::move(identity));
      std::error_code error;
      std::vector<std::filesystem::path> folders;
      // increment(error), not ++: a folder that fails mid-scan must not throw.
      for (std::filesystem::directory_iterator it(absolute_root, error), end; !error && it != end;
           it.increment(error)) {
        const std::filesystem::directory_entry& entry = *it;
        if (entry.path().filename().string().starts_with(".")) continue;
        std::error_code kind_error;
        if (entry.is_directory(kind_error)) folders.push_back(entry.path());
      }
      std::sort(folders.begin(), folders.end());
      for (const std::filesystem::path& folder : folders) {
        const std::string folder_name = folder.filename().string();
        const std::string file = (folder / "SKILL.md").string();
        const auto problem = [&](std::string reason) {
          problems.push_back({folder_name, file, std::move(reason)});
        };
        // A repository's skill stays inside its skills directory; the
        // user's and the system's are their own (and resolving every path
        // would cost a start with many skills its time).
        auto read =
            ReadBoundedFile(file, {.max_bytes = kMaxSkillFile,
                                   .confine_to = level == Level::kProject ? root : std::string()});
        if (!read) {
          problem(read.error());
          continue;
        }
        if (!read->exists) continue;  // not a skill
        if (read->truncated) {
          problem("SKILL.md is larger than " + std::to_string(kMaxSkillFile / 1024) + " KB");
          continue;
        }
        auto document = ParseSkillDocument(read->text);
        if (!document) {
          problem(document.error());
          continue;
        }
        if (document->name != folder_name) {
          problem("its name '" + document->name + "' is not its folder's name '" + folder_name +
                  "'; rename one of them");
          continue;
        }
        if (!IsValidSkillName(folder_name)) {
          problem("the name '" + folder_name +
                  "' must be 1 to 64 letters, digits, '-', '_' or '.'");
          continue;
        }
        if (auto it = found.find(folder_name); it != found.end()) {
          problem("same name as " + it->second.dir + " at the same level (" +
                  std::string(LevelName(level)) + "); that one is used");
          continue;
        }
        found.emplace(folder_name, Skill{folder_name, std::move(document->description),
                                         folder.lexically_normal().string(), level});
      }
    }
    for (auto& [name, skill] : found) winners.insert_or_assign(name, std::move(skill));
  }
  std::vector<Skill> skills;
  for (auto& [name, skill] : winners) skills.push_back(std::move(skill));
  return Catalog(std::move(skills), std::move(problems));
}

}  // namespace ikigai::skills
