#include "discovery/schema_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/io.h"
#include "base/unique_fd.h"

namespace ikigai::discovery {
namespace {

using Json = nlohmann::json;

constexpr const char* kFormat = "ikigai-schema-cache";
constexpr int kFormatVersion = 1;
// Far above what a few hundred tools of 8 KB each need.
constexpr off_t kMaxCacheBytes = 32 * 1024 * 1024;
constexpr std::size_t kMaxSchemaBytes = 64 * 1024;

std::int64_t Nanoseconds(const timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The file's text if it is ours to trust: a regular file of this user, of a
// sane size. Otherwise nullopt.
std::optional<std::string> ReadOwnFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      st.st_size > kMaxCacheBytes) {
    return std::nullopt;
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  if (!ReadAll(fd.get(), text, kMaxCacheBytes)) return std::nullopt;
  return text;
}

template <typename T>
bool Get(const Json& object, const char* key, T& out) {
  const auto it = object.find(key);
  if (it == object.end()) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return false;
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!it->is_number_unsigned()) return false;
  } else {
    if (!it->is_number_integer()) return false;
  }
  out = it->template get<T>();
  return true;
}

}  // namespace

std::optional<FileVersion> VersionOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileVersion{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                     static_cast<std::int64_t>(st.st_size), Nanoseconds(st.st_mtim),
                     Nanoseconds(st.st_ctim)};
}

std::string DefaultSchemaCachePath() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::string(xdg) + "/ikigai/schemas.json";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    return std::string(home) + "/.cache/ikigai/schemas.json";
  }
  return "";
}

SchemaCache SchemaCache::Load(const std::string& path) {
  SchemaCache cache;
  cache.path_ = path;
  if (path.empty()) return cache;
  if (::access(path.c_str(), F_OK) != 0) {
    cache.dirty_ = errno != ENOENT;  // something is there that we cannot use
    return cache;
  }
  // From here on, anything short of a perfect file is rewritten.
  cache.dirty_ = true;
  const std::optional<std::string> text = ReadOwnFile(path);
  if (!text) return cache;
  const Json root = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  std::string format;
  int version = 0;
  if (!root.is_object() || !Get(root, "format", format) || format != kFormat ||
      !Get(root, "version", version) || version != kFormatVersion) {
    return cache;
  }
  const auto tools = root.find("tools");
  if (tools == root.end() || !tools->is_object()) return cache;
  bool perfect = true;
  for (const auto& [tool_path, entry] : tools->items()) {
    Entry e;
    const bool valid =
        !tool_path.empty() && tool_path[0] == '/' && entry.is_object() &&
        Get(entry, "device", e.version.device) && Get(entry, "inode", e.version.inode) &&
        Get(entry, "size", e.version.size) && Get(entry, "mtime_ns", e.version.mtime_ns) &&
        Get(entry, "ctime_ns", e.version.ctime_ns) && Get(entry, "schema", e.schema_text) &&
        e.schema_text.size() <= kMaxSchemaBytes;
    if (!valid) {
      perfect = false;
      continue;
    }
    cache.entries_.emplace(tool_path, std::move(e));
  }
  cache.dirty_ = !perfect;
  return cache;
}

std::optional<std::string> SchemaCache::Find(const std::string& tool_path,
                                             const FileVersion& version) const {
  const auto it = entries_.find(tool_path);
  if (it == entries_.end() || !(it->second.version == version)) return std::nullopt;
  return it->second.schema_text;
}

void SchemaCache::Put(const std::string& tool_path, const FileVersion& version,
                      std::string schema_text) {
  if (schema_text.size() > kMaxSchemaBytes) return;
  Entry& entry = entries_[tool_path];
  if (entry.version == version && entry.schema_text == schema_text) return;
  entry = {version, std::move(schema_text)};
  dirty_ = true;
}

Result<bool, std::string> SchemaCache::Save() {
  if (!dirty_ || path_.empty()) return false;
  Json tools = Json::object();
  for (const auto& [tool_path, entry] : entries_) {
    if (VersionOf(tool_path) != entry.version) continue;  // gone or changed since
    tools[tool_path] = {{"device", entry.version.device},     {"inode", entry.version.inode},
                        {"size", entry.version.size},         {"mtime_ns", entry.version.mtime_ns},
                        {"ctime_ns", entry.version.ctime_ns}, {"schema", entry.schema_text}};
  }
  const Json root = {{"format", kFormat}, {"version", kFormatVersion}, {"tools", std::move(tools)}};
  const std::string text = root.dump();

  const std::string dir = path_.substr(0, path_.rfind('/'));
  if (auto made = MakeDirectories(dir, 0700); !made) return Err(made.error());
  std::string temp = path_ + ".XXXXXX";
  UniqueFd fd(::mkostemp(temp.data(), O_CLOEXEC));
  if (!fd.valid()) return Err("cannot write " + temp + ": " + std::strerror(errno));
  if (!WriteAll(fd.get(), text) || ::rename(temp.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    return Err("cannot write " + path_ + ": " + why);
  }
  dirty_ = false;
  return true;
}

}  // namespace ikigai::discovery
