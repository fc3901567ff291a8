// What /proc/<pid>/stat says of a process: its parent, group, session and
// start time. The start time tells a process from a later one that got the
// same pid (pids come round again in a long session).
#pragma once

#include <sys/types.h>

#include <chrono>

namespace ikigai {

struct ProcessInfo {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  pid_t session = 0;
  unsigned long long start = 0;  // clock ticks after boot
};

// False if the process does not exist or has ended (a zombie). No
// allocation.
bool ReadProcessInfo(pid_t pid, ProcessInfo& info);

// How long `root` and its living descendants have waited, runnable, for a
// CPU (/proc/<pid>/schedstat): on a busy machine, time that says nothing
// about the process itself. Zero where the kernel does not tell.
std::chrono::nanoseconds TimeWaitingForCpu(pid_t root);

}  // namespace ikigai
