#include "session/project_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/bounded_file.h"
#include "base/io.h"
#include "protocol/parse_json.h"
#include "session/project_hooks.h"

namespace ikigai::session {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxStoreBytes = 4 * 1024 * 1024;

Result<Json, std::string> Load(const std::string& path) {
  auto file = ReadBoundedFile(path, {.max_bytes = kMaxStoreBytes, .confine_to = ""});
  if (!file) return Err(std::move(file).error());
  if (!file->exists) return Json::object();
  auto json = protocol::ParseJson(file->text);
  if (!json || !json->is_object() ||
      (json->contains("projects") && !(*json)["projects"].is_object())) {
    return Err(path + ": not a valid projects file (" +
               (json ? std::string("wrong shape") : json.error()) +
               "); fix it or remove it, then trust the folder again");
  }
  return std::move(*json);
}

Result<bool, std::string> Save(const std::string& path, const Json& json) {
  const std::filesystem::path target(path);
  std::error_code error;
  std::filesystem::create_directories(target.parent_path(), error);
  if (error) return Err(target.parent_path().string() + ": cannot create: " + error.message());
  ::chmod(target.parent_path().c_str(), 0700);
  std::string temp = path + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return Err(path + ": cannot write: " + std::strerror(errno));
  const std::string text = json.dump(2) + "\n";
  const bool ok = ::fchmod(fd, 0600) == 0 && WriteAll(fd, text) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    const int why = ok ? errno : saved_errno;
    ::unlink(temp.c_str());
    return Err(path + ": cannot write: " + std::strerror(why));
  }
  return true;
}

Json& Project(Json& json, const std::string& dir) { return json["projects"][ProjectKey(dir)]; }

}  // namespace

std::string ProjectKey(const std::string& dir) {
  char resolved[PATH_MAX];
  if (::realpath(dir.c_str(), resolved) != nullptr) return resolved;
  return std::filesystem::absolute(dir).lexically_normal().string();
}

std::string ProjectStore::DefaultPath() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.ikigai/projects.json";
}

Result<std::optional<bool>, std::string> ProjectStore::Trusted(const std::string& dir) const {
  if (path_.empty()) return std::optional<bool>();
  auto json = Load(path_);
  if (!json) return Err(std::move(json).error());
  const Json& project = Project(*json, dir);
  if (!project.is_object() || !project.contains("trusted") || !project["trusted"].is_boolean()) {
    return std::optional<bool>();
  }
  return std::optional<bool>(project["trusted"].get<bool>());
}

Result<nlohmann::json, std::string> ProjectStore::TrustedHooks(const std::string& dir) const {
  if (path_.empty()) return Json();
  auto json = Load(path_);
  if (!json) return Err(std::move(json).error());
  const Json& project = Project(*json, dir);
  if (!project.is_object() || !project.contains("hooks")) return Json();
  return project["hooks"];
}

Result<std::vector<std::string>, std::string> ProjectStore::AllowRules(
    const std::string& dir) const {
  std::vector<std::string> rules;
  if (path_.empty()) return rules;
  auto json = Load(path_);
  if (!json) return Err(std::move(json).error());
  const Json& project = Project(*json, dir);
  if (!project.is_object() || !project.contains("allow") || !project["allow"].is_array()) {
    return rules;
  }
  for (const Json& rule : project["allow"]) {
    if (rule.is_string()) rules.push_back(rule.get<std::string>());
  }
  return rules;
}

Result<bool, std::string> ProjectStore::SetTrusted(const std::string& dir, bool trusted) const {
  if (path_.empty()) return Err(std::string("HOME is not set: nowhere to keep the answer"));
  auto json = Load(path_);
  if (!json) return Err(std::move(json).error());
  Json& project = Project(*json, dir);
  project["trusted"] = trusted;
  Json hooks = trusted ? ProjectHooks(ProjectKey(dir)) : Json();
  if (hooks.is_null()) {
    project.erase("hooks");
  } else {
    project["hooks"] = std::move(hooks);
  }
  return Save(path_, *json);
}

Result<bool, std::string> ProjectStore::AddAllowRule(const std::string& dir,
                                                     const std::string& rule) const {
  if (path_.empty()) return Err(std::string("HOME is not set: nowhere to keep the rule"));
  auto json = Load(path_);
  if (!json) return Err(std::move(json).error());
  Json& allow = Project(*json, dir)["allow"];
  if (!allow.is_array()) allow = Json::array();
  for (const Json& existing : allow) {
    if (existing == rule) return true;
  }
  allow.push_back(rule);
  return Save(path_, *json);
}

}  // namespace ikigai::session
