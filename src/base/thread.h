// Threads of the host that never take the process's signals.
//
// A thread inherits the signal mask of the thread that starts it. The REPL
// counts on SIGINT reaching its main thread (a read interrupted by Ctrl+C),
// so every helper thread starts with all signals blocked.
#pragma once

#include <signal.h>

#include <thread>
#include <utility>

namespace ikigai::base {

template <typename F>
std::thread ThreadWithoutSignals(F&& body) {
  sigset_t all, previous;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  std::thread thread(std::forward<F>(body));
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread;
}

}  // namespace ikigai::base
