#include "base/process_info.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ikigai {

bool ReadProcessInfo(pid_t pid, ProcessInfo& info) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[1024];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
  // majflt cmajflt utime stime cutime cstime priority nice threads
  // itrealvalue starttime": comm may hold spaces and parentheses.
  const char* after = std::strrchr(text, ')');
  if (after == nullptr) return false;
  char state = 0;
  int parent = 0, group = 0, session = 0;
  unsigned long long start = 0;
  if (std::sscanf(after + 1,
                  " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                  &state, &parent, &group, &session, &start) != 5) {
    return false;
  }
  if (state == 'Z') return false;  // dead already
  info = {pid, parent, group, session, start};
  return true;
}

namespace {

// Reads a small /proc file into `text`; false if it cannot be read.
bool ReadSmall(const char* path, char* text, std::size_t size) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::read(fd, text, size - 1);
  ::close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  return true;
}

long long WaitOf(pid_t pid) {
  char path[64], text[128];
  std::snprintf(path, sizeof path, "/proc/%d/schedstat", static_cast<int>(pid));
  unsigned long long on_cpu = 0, waiting = 0;
  if (!ReadSmall(path, text, sizeof text) ||
      std::sscanf(text, "%llu %llu", &on_cpu, &waiting) != 2) {
    return 0;
  }
  return static_cast<long long>(waiting);
}

long long WaitOfTree(pid_t pid, int depth) {
  long long total = WaitOf(pid);
  if (depth > 16) return total;
  char path[64], text[4096];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", static_cast<int>(pid),
                static_cast<int>(pid));
  if (!ReadSmall(path, text, sizeof text)) return total;
  for (char* p = text; *p != '\0';) {
    char* end = nullptr;
    const long child = std::strtol(p, &end, 10);
    if (end == p) break;
    if (child > 0) total += WaitOfTree(static_cast<pid_t>(child), depth + 1);
    p = end;
  }
  return total;
}

}  // namespace

std::chrono::nanoseconds TimeWaitingForCpu(pid_t root) {
  return std::chrono::nanoseconds(WaitOfTree(root, 0));
}

}  // namespace ikigai
