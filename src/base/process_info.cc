#include "base/process_info.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
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

}  // namespace ikigai
