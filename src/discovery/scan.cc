#include "discovery/scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "discovery/discovery.h"

namespace ikigai::discovery {
namespace {

// Providers accept tool names of ^[a-zA-Z0-9_-]{1,64}$ only, and one bad
// name in a request makes them refuse the whole request.
std::string NameProblem(const std::string& name) {
  const bool valid =
      name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
      });
  if (valid) return "";
  return "invalid tool name: model providers accept only letters, digits, '_' and '-', at most "
         "64 characters; rename the file";
}

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

// Why `file` in `dir_fd` is not a tool, or empty if it is one.
std::string Unusable(int dir_fd, const std::string& file) {
  struct stat st {};
  if (::fstatat(dir_fd, file.c_str(), &st, 0) != 0) {  // follows symlinks
    const int error = errno;
    struct stat link {};
    if (error == ENOENT && ::fstatat(dir_fd, file.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(link.st_mode)) {
      return "broken symbolic link";
    }
    return std::string("cannot stat: ") + std::strerror(error);
  }
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  // For the effective user, as exec will judge it (root needs an x bit too).
  if (::faccessat(dir_fd, file.c_str(), X_OK, AT_EACCESS) != 0) return "not executable";
  return {};
}

}  // namespace

Scan ScanDirectory(const std::string& dir) {
  Scan scan;
  std::unique_ptr<DIR, DirCloser> handle(::opendir(dir.c_str()));
  if (!handle) {
    if (errno == ENOENT) return scan;
    const std::string why = errno == ENOTDIR ? "not a directory" : std::strerror(errno);
    scan.failures.push_back({"", dir, "cannot read directory: " + why});
    return scan;
  }
  std::vector<std::string> files;
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(handle.get());
    if (entry == nullptr) break;
    // Hidden files are never tools: editors leave ".#foo-tool" lock links.
    if (entry->d_name[0] != '.') files.emplace_back(entry->d_name);
  }
  if (errno != 0) {
    scan.failures.push_back(
        {"", dir, std::string("cannot read directory: ") + std::strerror(errno)});
  }
  std::sort(files.begin(), files.end());

  std::map<std::string, std::string> seen;  // tool name -> the file that has it
  for (const std::string& file : files) {
    std::string name = ToolNameFromFile(file);
    if (name.empty()) continue;
    std::string path = (dir.ends_with('/') ? dir : dir + "/") + file;
    if (std::string why = NameProblem(name); !why.empty()) {
      scan.failures.push_back({std::move(name), std::move(path), std::move(why)});
      continue;
    }
    if (std::string why = Unusable(::dirfd(handle.get()), file); !why.empty()) {
      scan.failures.push_back({std::move(name), std::move(path), std::move(why)});
      continue;
    }
    // "a-b-tool" and "a_b-tool" are both "a_b": the first in name order wins.
    if (auto [it, added] = seen.emplace(name, file); !added) {
      scan.failures.push_back(
          {std::move(name), std::move(path), "same name as " + it->second + " in this directory"});
      continue;
    }
    scan.tools.push_back({std::move(name), std::move(path)});
  }
  return scan;
}

}  // namespace ikigai::discovery
