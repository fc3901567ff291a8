// What the user decided about each project, kept in ~/.ikigai/projects.json
// (never in the repository, which anyone could have written): whether the
// folder is trusted, and the rules its "always" answers added.
//
//   {"projects": {"/home/u/src/app": {"trusted": true, "allow": ["bash(npm test:*)"],
//                                     "hooks": {...the project's hooks when trusted...}}}}
//
// Folders are keyed by their real path. The file is private (0600) and
// replaced atomically; a corrupt file is an error that names it, never
// silently overwritten.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace ikigai::session {

class ProjectStore {
 public:
  explicit ProjectStore(std::string path) : path_(std::move(path)) {}

  // ~/.ikigai/projects.json (empty without $HOME).
  static std::string DefaultPath();

  // nullopt: never decided.
  Result<std::optional<bool>, std::string> Trusted(const std::string& dir) const;
  Result<std::vector<std::string>, std::string> AllowRules(const std::string& dir) const;

  // The project hooks trusting agreed to (session/project_hooks.h); null: none.
  Result<nlohmann::json, std::string> TrustedHooks(const std::string& dir) const;

  // Trusting also keeps the hooks the project declares now.
  Result<bool, std::string> SetTrusted(const std::string& dir, bool trusted) const;
  Result<bool, std::string> AddAllowRule(const std::string& dir, const std::string& rule) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The key for a folder: its real path (the path as given if it cannot be
// resolved).
std::string ProjectKey(const std::string& dir);

}  // namespace ikigai::session
