#include "session/trust.h"

#include <cstdlib>
#include <filesystem>

#include "base/visible_text.h"
#include "discovery/discovery.h"
#include "session/project_hooks.h"

namespace ikigai::session {

std::string ProjectContents::Describe() const {
  std::string text;
  const auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (tools > 0) add(std::to_string(tools) + (tools == 1 ? " tool" : " tools"));
  if (config) add("a config file");
  if (other_files) add("other files");
  if (mcp_json) add("MCP servers in .mcp.json");
  if (skills > 0) add(std::to_string(skills) + (skills == 1 ? " skill" : " skills"));
  return text;
}

ProjectContents InspectProject(const std::string& dir) {
  ProjectContents contents;
  const std::filesystem::path ikigai = std::filesystem::path(dir) / ".ikigai";
  std::error_code error;
  contents.mcp_json = std::filesystem::exists(std::filesystem::path(dir) / ".mcp.json", error);
  for (const auto& entry : std::filesystem::directory_iterator(ikigai, error)) {
    const std::string name = entry.path().filename().string();
    if (name == "tools") {
      std::error_code tools_error;
      for (const auto& tool : std::filesystem::directory_iterator(entry.path(), tools_error)) {
        if (!discovery::ToolNameFromFile(tool.path().filename().string()).empty()) {
          ++contents.tools;
        }
      }
    } else if (name == "config.json") {
      contents.config = true;
    } else if (name == "skills") {
      continue;  // counted below with .agents/skills
    } else {
      contents.other_files = true;
    }
  }
  // Skills: their instructions reach the model and their tools run.
  for (const char* skills : {".ikigai/skills", ".agents/skills"}) {
    std::error_code skills_error;
    for (const auto& skill :
         std::filesystem::directory_iterator(std::filesystem::path(dir) / skills, skills_error)) {
      std::error_code exists_error;
      if (std::filesystem::exists(skill.path() / "SKILL.md", exists_error)) ++contents.skills;
    }
  }
  return contents;
}

TrustState DecideTrust(const std::string& dir, bool trust_once, const ProjectStore& store) {
  TrustState state;
  state.dir = dir;
  // Started in $HOME, ./.ikigai is ~/.ikigai: the user's own, nothing to trust.
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0' || ProjectKey(dir) != ProjectKey(home)) {
    state.contents = InspectProject(dir);
  }
  auto recorded = store.Trusted(dir);
  if (recorded) {
    state.recorded = *recorded;
  } else {
    state.store_problem = recorded.error();
  }
  // Hooks run commands: trust given to some hooks is not trust given to
  // others the repository brings later.
  if (state.recorded.value_or(false) && state.contents.config) {
    auto agreed = store.TrustedHooks(dir);
    if (agreed && *agreed != ProjectHooks(ProjectKey(dir))) {
      state.hooks_changed = true;
      state.recorded.reset();
    }
  }
  state.trust_once = trust_once;
  state.trusted = trust_once || state.recorded.value_or(false);
  return state;
}

std::string SkippedMessage(const TrustState& state) {
  return "ikigai: skipped ./.ikigai/ (" + state.contents.Describe() + "): " +
         (state.hooks_changed
              ? "its hooks changed since you trusted this folder, so none of it runs until you "
                "trust it again. Read them in ./.ikigai/config.json, then `ikigai trust`, or "
                "for one run --trust."
              : "this folder is not trusted, so none of it runs. Trust it with `ikigai trust`, "
                "or for one run with --trust.") +
         (state.store_problem.empty() ? "" : " (" + state.store_problem + ")");
}

std::string TrustQuestion(const TrustState& state) {
  return "This folder (" + state.dir +
         ") has a .ikigai/ written by whoever wrote it. It contains: " + state.contents.Describe() +
         ". " +
         (state.hooks_changed ? "Its hooks (in .ikigai/config.json) changed since you trusted it. "
                              : "") +
         "Trusted, its tools run and its config applies; untrusted, ikigai skips it. Trust this "
         "folder? [y/N] ";
}

int RecordTrust(const std::string& dir, bool trusted, const ProjectStore& store, std::ostream& out,
                std::ostream& err) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    err << "ikigai: " << VisibleText(dir, Layout::kOneLine) << ": not a directory\n";
    return 1;
  }
  const std::string key = ProjectKey(dir);
  if (auto saved = store.SetTrusted(key, trusted); !saved) {
    err << "ikigai: " << VisibleText(saved.error(), Layout::kKeep) << "\n";
    return 1;
  }
  const ProjectContents contents = InspectProject(key);
  const std::string what = contents.empty() ? "" : " (" + contents.Describe() + ")";
  if (trusted) {
    out << "Trusted " << key << ": its .ikigai/" << what << " will load.\n";
  } else {
    out << "Untrusted " << key << ": its .ikigai/" << what << " will be skipped.\n";
  }
  return 0;
}

}  // namespace ikigai::session
