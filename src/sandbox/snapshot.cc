#include "sandbox/snapshot.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

namespace ikigai::sandbox {
namespace {

Fingerprint Take(const std::string& path) {
  struct stat st {};
  Fingerprint f;
  if (::lstat(path.c_str(), &st) != 0) return f;
  f.exists = true;
  f.mode = st.st_mode;
  f.size = st.st_size;
  f.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  f.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  f.inode = st.st_ino;
  f.device = st.st_dev;
  return f;
}

void Walk(const std::string& path, int depth, ProtectedSnapshot& s) {
  if (s.entries.size() >= kSnapshotMaxEntries || s.entries.count(path) != 0) return;
  const Fingerprint f = Take(path);
  s.entries[path] = f;
  if (!f.exists || !S_ISDIR(f.mode) || depth >= 16) return;
  DIR* d = ::opendir(path.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    Walk(path + "/" + e->d_name, depth + 1, s);
  }
  ::closedir(d);
}

}  // namespace

ProtectedSnapshot TakeSnapshot(const std::vector<std::string>& paths) {
  ProtectedSnapshot s;
  for (const auto& p : paths) Walk(p, 0, s);
  return s;
}

std::vector<std::string> ChangedPaths(const ProtectedSnapshot& before,
                                      const ProtectedSnapshot& after) {
  std::vector<std::string> changed;
  for (const auto& [path, f] : before.entries) {
    auto it = after.entries.find(path);
    if (it == after.entries.end() || !(it->second == f)) changed.push_back(path);
  }
  for (const auto& [path, f] : after.entries) {
    if (before.entries.count(path) == 0) changed.push_back(path);
  }
  std::sort(changed.begin(), changed.end());
  return changed;
}

}  // namespace ikigai::sandbox
