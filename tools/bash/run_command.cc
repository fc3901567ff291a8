#include "run_command.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "spawn.h"

namespace ikigai::bash_tool {
namespace {

using std::chrono::milliseconds;

// After the shell exits, how long output still in flight may take to arrive.
constexpr milliseconds kDrainGrace{30};
// How often to check for the shell's exit when there is no pidfd.
constexpr milliseconds kExitCheckInterval{20};
// After SIGKILL, how long to wait for the shell's exit status.
constexpr milliseconds kReapWait{200};
// Reads of 64 KB between two looks at the clock.
constexpr int kReadsPerWakeup = 16;

// The host cancels a call (Ctrl+C) by signalling the tool's process group,
// which the command, in a session of its own, is not part of. So the tool
// passes cancellation on: on SIGTERM, SIGINT or SIGHUP it kills the
// command's group, then dies of the signal as it would have. (Against
// SIGKILL, which cannot be caught, see PR_SET_PDEATHSIG in spawn.cc.)
volatile sig_atomic_t g_command_group = 0;
constexpr int kCancelSignals[] = {SIGTERM, SIGINT, SIGHUP};

extern "C" void KillCommandAndDie(int sig) {
  const pid_t group = g_command_group;
  if (group > 0 && ::kill(-group, SIGKILL) != 0) ::kill(group, SIGKILL);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// SpawnShell with cancellation forwarded from the moment the shell exists:
// the signals stay blocked until its group is known to the handler.
Result<Shell, std::string> SpawnCancellableShell(const SpawnRequest& request) {
  struct sigaction forward {};
  forward.sa_handler = KillCommandAndDie;
  sigemptyset(&forward.sa_mask);
  sigset_t cancel, old;
  sigemptyset(&cancel);
  for (int sig : kCancelSignals) {
    ::sigaction(sig, &forward, nullptr);
    sigaddset(&cancel, sig);
  }
  ::sigprocmask(SIG_BLOCK, &cancel, &old);
  auto shell = SpawnShell(request);
  if (shell) g_command_group = shell->pid;
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  return shell;
}

int PollTimeout(Clock::time_point until) {
  const auto left = std::chrono::ceil<milliseconds>(until - Clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, 60'000));
}

int ExitCode(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

class CommandWatch {
 public:
  CommandWatch(Shell shell, OutputCapture& capture) : shell_(std::move(shell)), capture_(capture) {}

  CommandOutcome Run(Clock::time_point deadline) {
    for (;;) {
      // A shell seen to exit in the wake that also passed the deadline has
      // finished: its status stands, and its background jobs stay.
      if (exited_) {
        // Background processes are left alone from here on, cancelled or not.
        g_command_group = 0;
        // Whatever still holds the pipe open is in the background.
        if (!output_closed_) {
          DrainUntil(std::max(Clock::now(), std::min(deadline, Clock::now() + kDrainGrace)));
        }
        return {ExitCode(status_), false};
      }
      if (Clock::now() >= deadline) {
        Reap(WNOHANG);  // it may have ended while the tool was not looking
        if (!exited_) return Kill();
        continue;
      }
      WaitForEvent(deadline);
    }
  }

 private:
  // Waits until output arrives, the shell exits or the deadline passes.
  void WaitForEvent(Clock::time_point deadline) {
    pollfd fds[2];
    nfds_t n = 0;
    if (!output_closed_) fds[n++] = {shell_.output.get(), POLLIN, 0};
    if (shell_.exited.valid()) fds[n++] = {shell_.exited.get(), POLLIN, 0};
    Clock::time_point until = deadline;
    if (!shell_.exited.valid()) until = std::min(until, Clock::now() + kExitCheckInterval);
    if (::poll(fds, n, PollTimeout(until)) < 0 && errno != EINTR) {
      // Cannot happen with valid descriptors; avoid spinning if it does.
      ::usleep(10'000);
    }
    if (!output_closed_) ReadAvailable();
    Reap(WNOHANG);
  }

  // Reads until the pipe is empty (or closed), or a bounded amount, so that
  // a producer faster than the reader cannot keep the loop from checking
  // the deadline.
  void ReadAvailable() {
    char buf[65536];
    for (int reads = 0; reads < kReadsPerWakeup; ++reads) {
      const ssize_t n = ::read(shell_.output.get(), buf, sizeof buf);
      if (n > 0) {
        capture_.Append(std::string_view(buf, static_cast<std::size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || errno != EAGAIN) output_closed_ = true;
      return;
    }
  }

  void DrainUntil(Clock::time_point until) {
    ReadAvailable();
    while (!output_closed_ && Clock::now() < until) {
      pollfd fd{shell_.output.get(), POLLIN, 0};
      if (::poll(&fd, 1, PollTimeout(until)) > 0) ReadAvailable();
    }
  }

  void Reap(int flags) {
    if (exited_) return;
    int status = 0;
    pid_t r;
    do {
      r = ::waitpid(shell_.pid, &status, flags);
    } while (r < 0 && errno == EINTR);
    if (r == shell_.pid) {
      exited_ = true;
      status_ = status;
    } else if (r < 0) {
      // ECHILD: someone else reaped it; the status is lost.
      exited_ = true;
      status_ = 127 << 8;
    }
  }

  CommandOutcome Kill() {
    // The shell leads its own group (setsid in the child); if the child has
    // not got that far yet, the group does not exist and killing the child
    // itself is enough, as it has started nothing.
    if (::kill(-shell_.pid, SIGKILL) != 0) ::kill(shell_.pid, SIGKILL);
    g_command_group = 0;
    // Background processes that left the group may still hold the pipe:
    // take what is there, do not wait for EOF.
    if (!output_closed_) ReadAvailable();
    const Clock::time_point give_up = Clock::now() + kReapWait;
    while (!exited_ && Clock::now() < give_up) {
      if (shell_.exited.valid()) {
        pollfd fd{shell_.exited.get(), POLLIN, 0};
        ::poll(&fd, 1, PollTimeout(give_up));
      } else {
        ::usleep(5'000);
      }
      Reap(WNOHANG);
    }
    // A shell stuck in the kernel (uninterruptible I/O) dies later and is
    // reaped by init; the answer must not wait for it.
    return {exited_ ? ExitCode(status_) : 128 + SIGKILL, true};
  }

  Shell shell_;
  OutputCapture& capture_;
  bool output_closed_ = false;
  bool exited_ = false;
  int status_ = 0;
};

}  // namespace

CommandOutcome RunCommand(const CommandRequest& request, OutputCapture& capture) {
  auto shell = SpawnCancellableShell({request.command, request.working_directory});
  if (!shell) {
    capture.Append(shell.error());
    return {127, false};
  }
  return CommandWatch(std::move(*shell), capture).Run(request.deadline);
}

}  // namespace ikigai::bash_tool
