// Test helpers: looking at processes and descriptors through /proc, and
// writing the small fault tools the tests run.
#pragma once

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "testing/tool_runner.h"

namespace ikigai::spawning::test {

// The state letter of /proc/PID/stat ('R', 'S', 'Z', ...), or 0 if there is
// no such process.
inline char ProcessState(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return 0;
  return stat[paren + 2];
}

// Gone or dead: a killed process whose parent (here, often a container's
// init that does not reap) has not reaped it yet is a zombie, not alive.
inline bool ProcessDead(pid_t pid) {
  const char state = ProcessState(pid);
  return state == 0 || state == 'Z' || state == 'X';
}

// Waits up to `within` for the process to die (a SIGKILL takes a moment).
inline bool DiesWithin(pid_t pid, std::chrono::milliseconds within) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (!ProcessDead(pid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Processes whose parent is `parent` (zombies included).
inline std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return children;
  while (dirent* e = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
    std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(paren + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) children.push_back(pid);
  }
  ::closedir(proc);
  return children;
}

// Descriptors open in this process (counting the one that lists them).
inline std::size_t OpenFdCount() { return ikigai::testing::ListDir("/proc/self/fd").size(); }

// Reads a pid a tool wrote to `path`, waiting a little for it to appear.
inline pid_t ReadPid(const std::string& path) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream f(path);
    pid_t pid = 0;
    if (f >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// Writes an executable /bin/sh script named `name` into `dir`.
inline std::string Script(const ikigai::testing::TempDir& dir, const std::string& name,
                          const std::string& body) {
  const std::string path = dir / name;
  ikigai::testing::WriteFile(path, "#!/bin/sh\n" + body + "\n", 0755);
  return path;
}

}  // namespace ikigai::spawning::test
