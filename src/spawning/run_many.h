// Running many child processes at once, in one poll() loop.
//
// Each job's stdin gets its input while its output is read (so a megabyte
// of arguments cannot deadlock against a full stdout pipe), stdout is kept
// up to a limit (past it the process is stopped), stderr up to a smaller
// one (the rest is drained and dropped), and each job has a deadline. A
// process that must stop (deadline, output limit, cancel) has its whole
// process group sent SIGTERM, then SIGKILL after a short grace. When the
// main process exits, its group is killed, so a background child still
// holding stdout cannot hang the loop. Every child is reaped: no zombie
// survives RunAll.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "spawning/spawn.h"

namespace ikigai::spawning {

struct Job {
  SpawnRequest spawn;
  std::string input;                     // written to stdin, which is then closed
  std::size_t stdout_limit = 64 * 1024;  // bytes kept; more stops the process
  std::size_t stderr_limit = 8 * 1024;   // bytes kept; more is dropped
  std::chrono::milliseconds timeout{30000};
  // The deadline counts only the time the process (and its descendants)
  // could run: time spent waiting for a CPU on a busy machine is added to
  // it, up to max_excused_factor (ten) times the timeout in all. A hung process still stops at
  // its timeout; one slowed by the machine is not taken for hung.
  bool excuse_cpu_wait = false;
  int max_excused_factor = 10;  // the deadline never passes timeout times this
  // Runs once the process is started (or failed to start): the parent's
  // copy of a descriptor handed to it (spawn.fd3) can be closed then.
  std::function<void()> after_spawn = nullptr;
};

enum class JobEnd {
  kExited,          // exit_code is set
  kSignaled,        // term_signal is set
  kTimedOut,        // killed at the deadline
  kOutputTooLarge,  // killed after stdout passed stdout_limit
  kCancelled,       // killed because the cancel descriptor became readable
  kSpawnFailed,     // spawn_error says why
};

struct JobOutcome {
  JobEnd end = JobEnd::kSpawnFailed;
  int exit_code = -1;
  int term_signal = 0;
  std::string out;  // stdout, at most stdout_limit bytes (the first
                    // ones, also for kOutputTooLarge)
  std::string err;  // stderr, at most stderr_limit bytes
  bool err_truncated = false;
  std::string spawn_error;
  std::chrono::microseconds elapsed{0};
};

// Runs every job; outcomes are in the order of `jobs`. If `cancel_fd` is a
// valid descriptor, its becoming readable stops every job still running
// (kCancelled); jobs not started yet are not started. At most `max_running`
// jobs run at once (0: as many as the descriptor limit allows, four
// descriptors each, at most 256); the rest start as others finish, each
// deadline counted from its own start.
// Sets SIGPIPE to SIG_IGN for the process on first use (if it was SIG_DFL):
// a tool that stops reading its stdin must not kill the host.
std::vector<JobOutcome> RunAll(const std::vector<Job>& jobs, int cancel_fd = -1,
                               std::size_t max_running = 0);

}  // namespace ikigai::spawning
