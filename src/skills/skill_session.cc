#include "skills/skill_session.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "base/bounded_file.h"
#include "base/utf8.h"
#include "protocol/schema.h"
#include "protocol/wrapper.h"
#include "skills/front_matter.h"

namespace ikigai::skills {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kSkillSchema = R"({
  "name": "skill",
  "description": "Loads a skill (the skills are listed under Skills in the system prompt) by its name. Returns the skill's instructions, the absolute path of its folder (relative paths in the instructions are relative to it) and the files in it; from then on the skill's own tools, if it has any, are offered too. Load a skill before doing a task its description matches.",
  "parameters": {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "the skill's name, as listed"}},
    "required": ["name"]
  },
  "annotations": {"readOnlyHint": true}
})";

registry::Source SourceOf(Level level) {
  switch (level) {
    case Level::kSystem:
      return registry::Source::kSystem;
    case Level::kUser:
      return registry::Source::kUser;
    case Level::kProject:
      return registry::Source::kProject;
  }
  return registry::Source::kSystem;
}

// The files of a skill's folder, relative to it, sorted; hidden entries
// and what lies past kMaxListedFiles left out (`more` counts those).
std::vector<std::string> ListFiles(const std::string& dir, std::size_t& more) {
  namespace fs = std::filesystem;
  constexpr std::size_t kMaxVisited = 5000;  // a node_modules in a skill must not stall a load
  std::vector<std::string> files;
  std::error_code error;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, error);
  std::size_t visited = 0;
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (++visited > kMaxVisited) break;
    const fs::path& path = it->path();
    if (path.filename().string().starts_with(".")) {
      std::error_code kind;
      if (it->is_directory(kind)) it.disable_recursion_pending();
      continue;
    }
    std::error_code kind;
    if (it->is_directory(kind)) continue;
    files.push_back(path.lexically_relative(dir).string());
  }
  std::sort(files.begin(), files.end());
  more = files.size() > kMaxListedFiles ? files.size() - kMaxListedFiles : 0;
  if (more > 0) files.resize(kMaxListedFiles);
  return files;
}

// The body, cut at a line boundary past kMaxInstructions.
std::string Instructions(const std::string& body, bool& cut) {
  std::string text = utf8::Repair(body);
  cut = text.size() > kMaxInstructions;
  if (!cut) return text;
  std::size_t end = text.rfind('\n', kMaxInstructions);
  if (end == std::string::npos) end = kMaxInstructions;
  text.resize(end);
  return utf8::Repair(text);
}

}  // namespace

registry::Tool SkillTool() {
  auto schema = protocol::ParseSchema(kSkillSchema);
  if (!schema) std::abort();  // the text above is the host's own: a bug
  registry::Tool tool;
  tool.name = std::string(kSkillToolName);
  tool.path = "built in";
  tool.source = registry::Source::kHost;
  tool.schema = std::move(*schema);
  return tool;
}

SkillSession::SkillSession(Catalog catalog, discovery::DiscoveryOptions tool_discovery)
    : catalog_(std::make_shared<const Catalog>(std::move(catalog))),
      tool_discovery_(std::move(tool_discovery)) {}

std::shared_ptr<const Catalog> SkillSession::catalog() const {
  std::lock_guard lock(mutex_);
  return catalog_;
}

void SkillSession::SetCatalog(Catalog catalog) {
  std::lock_guard lock(mutex_);
  catalog_ = std::make_shared<const Catalog>(std::move(catalog));
}

void SkillSession::Attach(registry::RegistryHolder* holder) {
  std::lock_guard lock(mutex_);
  holder_ = holder;
}

bool SkillSession::IsLoaded(std::string_view name) const {
  std::lock_guard lock(mutex_);
  return loaded_.contains(name);
}

std::shared_ptr<const registry::Registry> SkillSession::WithSkillTools(
    std::shared_ptr<const registry::Registry> registry) const {
  std::lock_guard lock(mutex_);
  const bool add_tool = !catalog_->skills().empty() && registry->Find(kSkillToolName) == nullptr;
  if (!add_tool && loaded_tools_.empty()) return registry;
  std::vector<registry::Tool> tools = registry->tools();
  if (add_tool) tools.push_back(SkillTool());
  for (const registry::Tool& tool : loaded_tools_) {
    if (registry->Find(tool.name) == nullptr) tools.push_back(tool);
  }
  return std::make_shared<const registry::Registry>(std::move(tools), registry->failures());
}

Json SkillSession::Load(const std::string& name) {
  std::lock_guard lock(mutex_);
  const Skill* skill = catalog_->Find(name);
  if (skill == nullptr) {
    std::string names;
    for (const Skill& known : catalog_->skills()) names += (names.empty() ? "" : ", ") + known.name;
    return {{"error", "No skill is named '" + name + "'. " +
                          (names.empty() ? std::string("There are no skills.")
                                         : "The skills are: " + names + ".")},
            {"error_code", "SKILL_NOT_FOUND"}};
  }
  const std::string file = skill->dir + "/SKILL.md";
  // As the catalog read it: a project's skill stays inside the project's
  // folder; the user's may be a link to where they keep it.
  const std::string root = skill->level == Level::kProject
                               ? std::filesystem::path(skill->dir).parent_path().string()
                               : std::string();
  auto read = ReadBoundedFile(file, {.max_bytes = kMaxSkillFile, .confine_to = root});
  Result<SkillDocument, std::string> document =
      !read           ? Result<SkillDocument, std::string>(Err(read.error()))
      : !read->exists ? Result<SkillDocument, std::string>(Err(std::string("it was removed")))
                      : ParseSkillDocument(read->text);
  if (!document) {
    return {
        {"error", "The skill '" + name + "' cannot be read (" + file + "): " + document.error() +
                      ". Do the task without it, or ask the user to fix it."},
        {"error_code", "SKILL_UNREADABLE"}};
  }

  Json result = {{"name", skill->name}, {"path", skill->dir}};
  bool cut = false;
  result["instructions"] = Instructions(document->body, cut);
  if (cut) {
    result["instructions_truncated"] = "The instructions were cut at " +
                                       std::to_string(kMaxInstructions / 1024) +
                                       " KB; read the rest of " + file + " with file_read.";
  }
  std::size_t more = 0;
  result["files"] = ListFiles(skill->dir, more);
  if (more > 0) result["files_not_listed"] = more;

  if (!loaded_.contains(name)) {
    LoadRecord record;
    const std::string tools_dir = skill->dir + "/tools";
    std::error_code error;
    if (std::filesystem::is_directory(tools_dir, error)) {
      const registry::Registry found =
          discovery::Discover({.system = tools_dir, .user = "", .project = ""}, tool_discovery_);
      const auto current = holder_ != nullptr ? holder_->Get() : nullptr;
      std::vector<registry::Tool> added;
      for (const registry::Tool& tool : found.tools()) {
        const bool taken =
            (current && current->Find(tool.name) != nullptr) ||
            std::any_of(loaded_tools_.begin(), loaded_tools_.end(),
                        [&](const registry::Tool& other) { return other.name == tool.name; });
        if (taken) {
          record.problems.push_back(
              {{"tool", tool.name}, {"reason", "another tool has this name; it is not offered"}});
          continue;
        }
        registry::Tool copy = tool;
        copy.source = SourceOf(skill->level);
        added.push_back(copy);
        loaded_tools_.push_back(std::move(copy));
        record.tools.push_back(tool.name);
      }
      for (const registry::DiscoveryFailure& failure : found.failures()) {
        std::string reason = failure.reason;
        if (!failure.detail.empty()) reason += ": " + failure.detail;
        record.problems.push_back({{"tool", failure.name.empty() ? failure.path : failure.name},
                                   {"reason", std::move(reason)}});
      }
      if (holder_ != nullptr && !added.empty()) {
        std::vector<registry::Tool> tools = current->tools();
        for (registry::Tool& tool : added) tools.push_back(std::move(tool));
        holder_->Set(
            std::make_shared<const registry::Registry>(std::move(tools), current->failures()));
      }
    }
    loaded_.emplace(name, std::move(record));
  }
  const LoadRecord& record = loaded_.find(name)->second;
  result["tools"] = record.tools;
  if (!record.problems.empty()) result["tool_problems"] = record.problems;
  std::string note = "Relative paths in the instructions are relative to " + skill->dir + ".";
  if (!record.tools.empty()) {
    std::string names;
    for (const std::string& tool : record.tools) names += (names.empty() ? "" : ", ") + tool;
    note += " The skill's tools are now available: " + names + ".";
  }
  result["note"] = std::move(note);
  return result;
}

protocol::WrappedJson SkillSession::Call(const registry::Tool& tool,
                                         const nlohmann::json& arguments, int /*cancel_fd*/) {
  if (tool.name != kSkillToolName) {
    return protocol::WrapFailure(
        protocol::wrapper_code::kToolNotFound,
        "'" + tool.name + "' is not a tool the host runs. Use another tool.");
  }
  const auto name = arguments.find("name");
  if (name == arguments.end() || !name->is_string() || name->get<std::string>().empty()) {
    return protocol::WrapFailure(protocol::wrapper_code::kInvalidParams,
                                 "skill needs {\"name\": \"SKILL\"}: one of the skill names listed "
                                 "in the system prompt.");
  }
  return protocol::WrapSuccess(Load(name->get<std::string>()));
}

}  // namespace ikigai::skills
