// Loading the configuration: JSON files, then the environment, layered.
//
// Each file is one JSON object whose keys are walked against the key table
// (keys.h): a key that completes a table path is checked and applied; a key
// that begins longer paths must hold an object and is walked into; any other
// key is an error that lists the keys allowed there. Every layer (system,
// user, project file, then environment variables) is applied in turn onto
// one Draft, so a later layer overrides an earlier one key by key; per-tool
// limits are resolved against the global ones only at the end.
#include "config/config.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <variant>

#include "base/bounded_file.h"
#include "config/keys.h"
#include "protocol/parse_json.h"

namespace ikigai::config {
namespace {

using Json = nlohmann::json;
using Done = Result<std::monostate, std::string>;

constexpr std::size_t kMaxFileSize = 1024 * 1024;

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> segments;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    segments.push_back(path.substr(start, dot - start));
    if (dot == std::string_view::npos) return segments;
    start = dot + 1;
  }
}

bool IsPlaceholder(std::string_view segment) { return segment.starts_with('<'); }

std::string Join(const std::vector<std::string>& segments) {
  std::string out;
  for (const std::string& s : segments) out += (out.empty() ? "" : ".") + s;
  return out;
}

// The keys whose path begins with `segments`.
std::vector<const Key*> KeysUnder(const std::vector<std::string>& segments) {
  std::vector<const Key*> keys;
  for (const Key& key : AllKeys()) {
    const auto pattern = Split(key.path);
    if (pattern.size() < segments.size()) continue;
    bool match = true;
    for (std::size_t i = 0; i < segments.size() && match; ++i) {
      match = IsPlaceholder(pattern[i]) || pattern[i] == segments[i];
    }
    if (match) keys.push_back(&key);
  }
  return keys;
}

// "must be a positive integer, got \"10\"", or empty if `value` fits `key`.
std::string CheckValue(const Key& key, const Json& value) {
  switch (key.kind) {
    case ValueKind::kPositiveInteger: {
      const bool positive = value.is_number_unsigned()
                                ? value.get<std::uint64_t>() > 0
                                : value.is_number_integer() && value.get<std::int64_t>() > 0;
      if (!positive) return "must be a positive integer, got " + value.dump();
      if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(key.max)) {
        return "must be at most " + std::to_string(key.max) + ", got " + value.dump();
      }
      return {};
    }
    case ValueKind::kString: {
      if (!value.is_string()) return "must be a string, got " + value.dump();
      if (key.choices.empty()) return {};
      const std::string text = value.get<std::string>();
      for (std::string_view rest = key.choices; !rest.empty();) {
        const auto space = rest.find(' ');
        if (rest.substr(0, space) == text) return {};
        rest = space == std::string_view::npos ? "" : rest.substr(space + 1);
      }
      return "must be one of " + std::string(key.choices) + ", got " + value.dump();
    }
    case ValueKind::kBoolean:
      return value.is_boolean() ? "" : "must be true or false, got " + value.dump();
    case ValueKind::kStringList: {
      const std::string expected = "must be a list of strings, e.g. [\"a\", \"b\"], got ";
      if (!value.is_array()) return expected + value.dump();
      for (const Json& item : value) {
        if (!item.is_string() || item.get<std::string>().empty()) return expected + value.dump();
      }
      return {};
    }
    case ValueKind::kHookList:
      return hooks::CheckHookList(value);
  }
  return "unknown kind of value";  // unreachable: every kind is handled above
}

Done Walk(const Json& object, std::vector<std::string>& segments, std::vector<std::string>& names,
          const std::string& source, Draft& draft) {
  for (const auto& [name, value] : object.items()) {
    segments.push_back(name);
    const std::string where = source + ": " + Join(segments);
    const std::vector<const Key*> keys = KeysUnder(segments);
    if (keys.empty()) {
      segments.pop_back();
      std::set<std::string> known;
      for (const Key* key : KeysUnder(segments)) {
        known.insert(std::string(Split(key->path)[segments.size()]));
      }
      if (segments.empty()) known.insert("mcp_servers");  // read apart from the keys

      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      return Err(where + ": unknown key (known here: " + list + ")");
    }
    const std::string_view segment = Split(keys.front()->path)[segments.size() - 1];
    const bool placeholder = IsPlaceholder(segment);
    if (placeholder) {
      if (std::string why = CheckPlaceholderName(segment, name); !why.empty()) {
        return Err(where + ": " + why);
      }
      names.push_back(name);
    }
    const Key* leaf = nullptr;
    for (const Key* key : keys) {
      if (Split(key->path).size() == segments.size()) leaf = key;
    }
    if (leaf != nullptr) {
      if (std::string why = CheckValue(*leaf, value); !why.empty()) {
        return Err(where + ": " + why);
      }
      leaf->apply(draft, names, value);
    } else {
      if (!value.is_object()) {
        return Err(where + ": must be an object, got " + value.dump());
      }
      if (auto walked = Walk(value, segments, names, source, draft); !walked) return walked;
    }
    if (placeholder) names.pop_back();
    segments.pop_back();
  }
  return std::monostate{};
}

// `confine_to`: the project's files must stay inside the project (a link
// to ~/.ssh/... is not followed); a FIFO or a device is refused, not read.
Done ApplyFile(const std::string& path, const std::string& confine_to, const EnvLookup& env,
               Draft& draft) {
  if (path.empty()) return std::monostate{};
  auto file = ReadBoundedFile(path, {.max_bytes = kMaxFileSize, .confine_to = confine_to});
  if (!file) return Err(std::move(file).error());
  if (!file->exists) return std::monostate{};
  if (file->truncated) return Err(path + ": larger than 1 MB");
  const std::string& text = file->text;
  auto json = protocol::ParseJson(text);
  if (!json) return Err(path + ": invalid JSON: " + json.error());
  if (!json->is_object()) {
    return Err(path + ": must be a JSON object, got " + std::string(json->type_name()));
  }
  // mcp_servers holds free-form entries with fields of their own: read apart.
  if (auto servers = json->find("mcp_servers"); servers != json->end()) {
    if (!servers->is_object()) {
      return Err(path + ": mcp_servers: must be an object of servers by name, got " +
                 servers->dump());
    }
    for (const auto& [name, value] : servers->items()) {
      auto server = ParseMcpServer(name, value, path, env);
      if (!server) return Err(path + ": " + server.error());
      draft.config.mcp_servers.insert_or_assign(name, std::move(*server));
    }
    json->erase(servers);
  }
  std::vector<std::string> segments, names;
  draft.source = path;
  return Walk(*json, segments, names, path, draft);
}

// An environment variable's text as the JSON value its key expects.
Result<Json, std::string> FromEnvironment(const Key& key, const std::string& text) {
  switch (key.kind) {
    case ValueKind::kPositiveInteger: {
      std::int64_t number = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc() || end != text.data() + text.size()) return Json(text);
      return Json(number);
    }
    case ValueKind::kString:
      return Json(text);
    case ValueKind::kBoolean:
      if (text == "1" || text == "true") return Json(true);
      if (text == "0" || text == "false") return Json(false);
      return Json(text);
    case ValueKind::kHookList:  // no variable sets hooks; parsed as JSON should one
      return protocol::ParseJson(text);
    case ValueKind::kStringList: {  // comma-separated
      Json list = Json::array();
      for (std::size_t start = 0; start <= text.size();) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        if (comma > start) list.push_back(text.substr(start, comma - start));
        start = comma + 1;
      }
      return list;
    }
  }
  return Err(std::string("unknown kind of value"));  // unreachable
}

Done ApplyEnvironment(const EnvLookup& env, Draft& draft) {
  for (const Key& key : AllKeys()) {
    if (key.env.empty()) continue;
    const std::optional<std::string> text = env(std::string(key.env));
    if (!text || text->empty()) continue;  // an empty variable counts as unset
    auto value = FromEnvironment(key, *text);
    const std::string where = "environment variable " + std::string(key.env);
    if (!value) return Err(where + ": " + value.error());
    if (std::string why = CheckValue(key, *value); !why.empty()) return Err(where + ": " + why);
    key.apply(draft, {}, *value);
  }
  return std::monostate{};
}

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string SystemConfigFile() {
  // GNU convention: the prefix /usr keeps its configuration in /etc.
  const std::string prefix = IKIGAI_INSTALL_PREFIX;
  if (prefix == "/usr" || prefix == "/usr/") return "/etc/ikigai/config.json";
  return prefix + "/etc/ikigai/config.json";
}

}  // namespace

ConfigFiles DefaultConfigFiles() {
  ConfigFiles files;
  files.system = SystemConfigFile();
  if (const std::string home = Getenv("HOME"); !home.empty()) {
    files.user = home + "/.ikigai/config.json";
  }
  if (char* cwd = ::getcwd(nullptr, 0); cwd != nullptr) {
    files.project = std::string(cwd) + "/.ikigai/config.json";
    std::free(cwd);
  }
  return files;
}

Result<Config, std::string> LoadConfig(const ConfigFiles& files, const EnvLookup& env) {
  Draft draft;
  for (const std::string* path : {&files.system, &files.user}) {
    if (auto applied = ApplyFile(*path, "", env, draft); !applied) {
      return Err(std::move(applied).error());
    }
  }
  if (!files.project.empty()) {
    // PROJECT/.ikigai/config.json stays inside PROJECT.
    const std::string project_root =
        std::filesystem::path(files.project).parent_path().parent_path().string();
    if (auto applied = ApplyFile(files.project, project_root, env, draft); !applied) {
      return Err(std::move(applied).error());
    }
  }
  if (auto applied = ApplyEnvironment(env, draft); !applied) {
    return Err(std::move(applied).error());
  }
  return Finish(std::move(draft));
}

Result<Config, std::string> LoadConfig(const ConfigFiles& files) {
  return LoadConfig(files, [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

}  // namespace ikigai::config
