// The hooks a project's ./.ikigai/config.json declares, as written: what
// trusting a folder agreed to run. Kept with the trust in
// ~/.ikigai/projects.json, so that a repository whose hooks changed since
// (a pull, a branch switch) is asked about again (DECISIONS §11).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ikigai::session {

// The "hooks" value of DIR/.ikigai/config.json; null when there is none (or
// the file cannot be read: loading the configuration reports that).
nlohmann::json ProjectHooks(const std::string& dir);

}  // namespace ikigai::session
