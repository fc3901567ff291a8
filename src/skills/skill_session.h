// A session's skills (DECISIONS §11): the catalog, the skills loaded so
// far, and the `skill` tool that loads one.
//
// Progressive disclosure: at the start the model sees only the names and
// descriptions (prompt_section.h) and the `skill` tool. Loading a skill
// returns its SKILL.md body, its folder's absolute path (the body's relative
// paths resolve against it) and its files; the first load also discovers
// the executables of its tools/ (`*-tool`, asked for --schema like any tool,
// under the same sandbox and cache) and adds them to the registry the agent
// reads, so that from the next request on they are offered. Before that,
// neither the body nor those tools are in any request.
//
// The `skill` tool is the host's own (registry::Source::kHost): the
// executor calls it through executor::RemoteTools, on its threads, so the
// state here is guarded by a mutex. A skill's tool whose name is already
// taken (a core tool, another skill's) is left out and said in the result.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "discovery/discovery.h"
#include "executor/executor.h"
#include "registry/registry.h"
#include "skills/catalog.h"

namespace ikigai::skills {

inline constexpr std::string_view kSkillToolName = "skill";

// The body is cut past this many bytes (the rest stays readable in the file).
inline constexpr std::size_t kMaxInstructions = 60 * 1024;
// Files listed at most.
inline constexpr std::size_t kMaxListedFiles = 200;

// The `skill` tool as the registry holds it.
registry::Tool SkillTool();

class SkillSession : public executor::RemoteTools {
 public:
  SkillSession(Catalog catalog, discovery::DiscoveryOptions tool_discovery);

  std::shared_ptr<const Catalog> catalog() const;
  // After /refresh: skills loaded before stay loaded (and keep their tools).
  void SetCatalog(Catalog catalog);

  // `registry` with the `skill` tool (when there are skills and no tool of
  // that name) and the tools of the skills loaded so far.
  std::shared_ptr<const registry::Registry> WithSkillTools(
      std::shared_ptr<const registry::Registry> registry) const;

  // The registry the agent reads: loading a skill adds its tools there. The
  // holder must outlive the calls (the front end owns both).
  void Attach(registry::RegistryHolder* holder);

  // Loads a skill (again: the body once more, the tools as first found).
  // The object is the tool's result; an unknown or broken skill is an
  // {"error", "error_code"} object (SKILL_NOT_FOUND, SKILL_UNREADABLE).
  nlohmann::ordered_json Load(const std::string& name);
  bool IsLoaded(std::string_view name) const;

  protocol::WrappedJson Call(const registry::Tool& tool, const nlohmann::json& arguments,
                             int cancel_fd) override;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Catalog> catalog_;
  discovery::DiscoveryOptions tool_discovery_;
  registry::RegistryHolder* holder_ = nullptr;
  struct LoadRecord {
    std::vector<std::string> tools;  // offered since the skill was loaded
    nlohmann::ordered_json problems = nlohmann::ordered_json::array();  // tools left out, why
  };
  std::map<std::string, LoadRecord, std::less<>> loaded_;
  std::vector<registry::Tool> loaded_tools_;  // of the skills loaded, in the order loaded
};

}  // namespace ikigai::skills
