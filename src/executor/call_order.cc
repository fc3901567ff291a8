#include "executor/call_order.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace ikigai::executor {
namespace {

// Whether one path is the other or lies below it ("/a" and "/a/b").
bool Overlap(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  if (!longer.starts_with(shorter)) return false;
  return longer.size() == shorter.size() || shorter.ends_with('/') || longer[shorter.size()] == '/';
}

bool Conflict(const CallAccess& a, const CallAccess& b) {
  if (!a.writes && !b.writes) return false;
  if (!a.path || !b.path) return true;
  if (a.file_identity && a.file_identity == b.file_identity) return true;
  return Overlap(*a.path, *b.path);
}

}  // namespace

std::vector<std::size_t> AssignWaves(const std::vector<CallAccess>& calls) {
  std::vector<std::size_t> waves(calls.size(), 0);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (Conflict(calls[i], calls[j])) waves[i] = std::max(waves[i], waves[j] + 1);
    }
  }
  return waves;
}

std::optional<std::string> NamedPath(const std::string& path_argument) {
  if (path_argument.empty()) return std::nullopt;
  std::error_code error;
  std::filesystem::path path = std::filesystem::absolute(path_argument, error);
  if (error) return std::nullopt;
  // Resolved through symbolic links where they exist, so that two names of
  // one file are one path.
  std::filesystem::path resolved = std::filesystem::weakly_canonical(path, error);
  std::string normal = (error ? path.lexically_normal() : resolved).string();
  while (normal.size() > 1 && normal.ends_with('/')) normal.pop_back();
  return normal;
}

std::optional<std::string> HardLinkedIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2) {
    return std::nullopt;
  }
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

}  // namespace ikigai::executor
