// One poll() loop over every job's pipes, its exit and the cancel descriptor.
//
// A job is finished when its main process has exited (its pidfd becomes
// readable), not when its pipes reach end of file: a background child may
// hold stdout open forever. Everything the main process wrote is in the
// pipes by then, so the loop reads what is readable without waiting, kills
// the whole process group (SIGKILL) and reaps the process. A job that must
// stop (deadline, output limit, cancel) gets SIGTERM on its group first and
// SIGKILL after a grace; the exit then follows the same path.
//
// Jobs start as soon as there is room: at most the caller's number, and
// never more than the descriptor limit allows (four descriptors per running
// job); the others wait their turn, their deadlines counted from their own
// start.
#include "spawning/run_many.h"

#include "spawning/host_guard.h"

#include "base/process_info.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <mutex>
#include <optional>

namespace ikigai::spawning {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Between SIGTERM and SIGKILL: time for a tool to stop what it started (the
// bash tool kills its command's session on SIGTERM).
constexpr milliseconds kKillGrace{200};
// Without pidfds (kernels before 5.3), how often to look for exits.
constexpr milliseconds kExitCheckInterval{10};
constexpr std::size_t kChunk = 64 * 1024;
// Reads of kChunk per descriptor per wakeup, so that one chatty job cannot
// starve the others.
constexpr int kReadsPerWakeup = 16;
// Reads after the main process exited: a background child writing without
// end must not keep the loop here.
constexpr int kDrainReads = 64;

// A tool that exits (or closes stdin) before reading all its input makes
// our next write fail. With SIGPIPE at its default that would kill the
// host; ignored, the write fails with EPIPE and the loop stops writing.
// Done once for the whole process, and only if nobody installed a handler.
// Children are unaffected: Spawn resets every disposition.
void IgnoreSigpipe() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
      ::signal(SIGPIPE, SIG_IGN);
    }
  });
}

std::size_t MaxRunning() {
  rlimit limit{};
  rlim_t fds = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) fds = limit.rlim_cur;
  if (fds < 128) return 1;
  return static_cast<std::size_t>(std::min<rlim_t>((fds - 64) / 6, 256));
}

// Appends up to `limit` bytes in total; says whether anything was left out.
bool AppendCapped(std::string& to, const char* data, std::size_t n, std::size_t limit) {
  const std::size_t room = to.size() < limit ? limit - to.size() : 0;
  to.append(data, std::min(n, room));
  return n > room;
}

enum class State { kQueued, kRunning, kDone };

struct Slot {
  const Job* job = nullptr;
  JobOutcome outcome;
  State state = State::kQueued;
  Child child;
  UniqueFd pidfd;
  std::size_t written = 0;
  Clock::time_point started;
  Clock::time_point deadline;
  std::optional<JobEnd> stop_reason;
  Clock::time_point kill_at;
  bool killed = false;
  bool exited = false;
};

enum class Kind { kStdin, kStdout, kStderr, kExit, kCancel };

class Runner {
 public:
  Runner(const std::vector<Job>& jobs, int cancel_fd, std::size_t max_running)
      : slots_(jobs.size()),
        cancel_fd_(cancel_fd),
        max_running_(max_running == 0 ? MaxRunning() : std::min(max_running, MaxRunning())) {
    for (std::size_t i = 0; i < jobs.size(); ++i) slots_[i].job = &jobs[i];
  }

  std::vector<JobOutcome> Run() {
    // Already cancelled: start nothing.
    if (cancel_fd_ >= 0) {
      pollfd cancel{cancel_fd_, POLLIN, 0};
      cancel_seen_ = ::poll(&cancel, 1, 0) > 0;
    }
    while (StartQueued()) {
      WaitAndHandle();
      for (Slot& s : slots_) {
        if (s.state == State::kRunning && !s.exited && !s.pidfd.valid()) CheckExited(s);
        if (s.state == State::kRunning && s.exited) Finish(s);
      }
      if (cancel_seen_) {
        for (Slot& s : slots_) {
          if (s.state == State::kRunning) BeginStop(s, JobEnd::kCancelled);
        }
      }
      HandleTimers();
    }
    std::vector<JobOutcome> outcomes;
    outcomes.reserve(slots_.size());
    for (Slot& s : slots_) outcomes.push_back(std::move(s.outcome));
    return outcomes;
  }

 private:
  // Starts waiting jobs while there is room; false once every job is done.
  bool StartQueued() {
    bool pending = false;
    for (Slot& s : slots_) {
      if (s.state == State::kQueued) {
        if (cancel_seen_) {
          s.outcome.end = JobEnd::kCancelled;
          s.state = State::kDone;
          continue;
        }
        if (running_ < max_running_) Start(s);
      }
      pending = pending || s.state != State::kDone;
    }
    return pending;
  }

  void Start(Slot& s) {
    s.started = Clock::now();
    s.deadline = s.started + s.job->timeout;
    auto child = Spawn(s.job->spawn);
    if (s.job->after_spawn) s.job->after_spawn();
    if (!child) {
      s.outcome.end = JobEnd::kSpawnFailed;
      s.outcome.spawn_error = std::move(child.error());
      s.outcome.elapsed = Elapsed(s);
      s.state = State::kDone;
      return;
    }
    s.child = std::move(*child);
    TellHostGuard(s.child.pid);
    s.pidfd.Reset(static_cast<int>(::syscall(SYS_pidfd_open, s.child.pid, 0)));
    s.state = State::kRunning;
    ++running_;
    if (s.job->input.empty()) s.child.stdin_fd.Reset();
  }

  void WaitAndHandle() {
    fds_.clear();
    owners_.clear();
    auto add = [&](int fd, short events, std::size_t slot, Kind kind) {
      fds_.push_back({fd, events, 0});
      owners_.push_back({slot, kind});
    };
    bool check_exits = false;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[i];
      if (s.state != State::kRunning) continue;
      if (s.child.stdin_fd.valid()) add(s.child.stdin_fd.get(), POLLOUT, i, Kind::kStdin);
      if (s.child.stdout_fd.valid()) add(s.child.stdout_fd.get(), POLLIN, i, Kind::kStdout);
      if (s.child.stderr_fd.valid()) add(s.child.stderr_fd.get(), POLLIN, i, Kind::kStderr);
      if (s.pidfd.valid()) {
        add(s.pidfd.get(), POLLIN, i, Kind::kExit);
      } else {
        check_exits = true;
      }
    }
    if (cancel_fd_ >= 0 && !cancel_seen_) add(cancel_fd_, POLLIN, 0, Kind::kCancel);

    if (::poll(fds_.data(), fds_.size(), PollTimeout(check_exits)) < 0) {
      // EINTR: look again. Anything else cannot happen with valid
      // descriptors within the limit; do not spin if it does.
      if (errno != EINTR) ::usleep(1000);
      return;
    }
    for (std::size_t k = 0; k < fds_.size(); ++k) {
      if (fds_[k].revents == 0) continue;
      const auto [index, kind] = owners_[k];
      Slot& s = slots_[index];
      switch (kind) {
        case Kind::kStdin:
          WriteInput(s);
          break;
        case Kind::kStdout:
          ReadStdout(s, kReadsPerWakeup);
          break;
        case Kind::kStderr:
          ReadStderr(s, kReadsPerWakeup);
          break;
        case Kind::kExit:
          s.exited = true;
          break;
        case Kind::kCancel:
          cancel_seen_ = true;
          break;
      }
    }
  }

  // Until the nearest deadline or kill time; -1 if there is none.
  int PollTimeout(bool check_exits) const {
    std::optional<Clock::time_point> until;
    for (const Slot& s : slots_) {
      if (s.state != State::kRunning) continue;
      std::optional<Clock::time_point> next;
      if (!s.stop_reason) {
        next = s.deadline;
      } else if (!s.killed) {
        next = s.kill_at;
      }
      if (next && (!until || *next < *until)) until = next;
    }
    if (check_exits) {
      const auto soon = Clock::now() + kExitCheckInterval;
      if (!until || soon < *until) until = soon;
    }
    if (!until) return -1;
    const auto left = std::chrono::ceil<milliseconds>(*until - Clock::now()).count();
    return static_cast<int>(std::clamp<decltype(left)>(left, 0, 60'000));
  }

  void WriteInput(Slot& s) {
    const std::string& input = s.job->input;
    while (s.written < input.size()) {
      const std::size_t n = std::min(kChunk, input.size() - s.written);
      const ssize_t w = ::write(s.child.stdin_fd.get(), input.data() + s.written, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return;
        break;  // EPIPE: the tool will not read the rest
      }
      s.written += static_cast<std::size_t>(w);
    }
    s.child.stdin_fd.Reset();
  }

  // Reads up to `reads` chunks, to end of file or until nothing is ready.
  template <typename Sink>
  void Read(UniqueFd& fd, int reads, Sink sink) {
    for (int i = 0; i < reads && fd.valid(); ++i) {
      const ssize_t n = ::read(fd.get(), buffer_->data(), buffer_->size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n <= 0) {
        fd.Reset();  // end of file, or an error that will not go away
        return;
      }
      sink(static_cast<std::size_t>(n));
    }
  }

  void ReadStdout(Slot& s, int reads) {
    Read(s.child.stdout_fd, reads, [&](std::size_t n) {
      if (AppendCapped(s.outcome.out, buffer_->data(), n, s.job->stdout_limit)) {
        BeginStop(s, JobEnd::kOutputTooLarge);
      }
    });
  }

  void ReadStderr(Slot& s, int reads) {
    Read(s.child.stderr_fd, reads, [&](std::size_t n) {
      if (AppendCapped(s.outcome.err, buffer_->data(), n, s.job->stderr_limit)) {
        s.outcome.err_truncated = true;
      }
    });
  }

  void CheckExited(Slot& s) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(s.child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == s.child.pid) {
      s.exited = true;
    }
  }

  // Sends SIGTERM to the group now and SIGKILL at kill_at if it is still
  // there. The first reason stays.
  void BeginStop(Slot& s, JobEnd reason) {
    if (s.stop_reason) return;
    s.stop_reason = reason;
    s.kill_at = Clock::now() + kKillGrace;
    s.child.stdin_fd.Reset();
    if (!s.exited) SignalGroup(s, SIGTERM);
  }

  static void SignalGroup(const Slot& s, int sig) {
    if (::kill(-s.child.pid, sig) != 0) ::kill(s.child.pid, sig);
  }

  void HandleTimers() {
    const auto now = Clock::now();
    for (Slot& s : slots_) {
      if (s.state != State::kRunning) continue;
      if (!s.stop_reason && now >= s.deadline && !Excused(s, now)) {
        BeginStop(s, JobEnd::kTimedOut);
      }
      if (s.stop_reason && !s.killed && now >= s.kill_at) {
        SignalGroup(s, SIGKILL);
        s.killed = true;
      }
    }
  }

  // Moves the deadline by the time the job waited for a CPU, if it may;
  // whether it is still ahead.
  static bool Excused(Slot& s, Clock::time_point now) {
    if (!s.job->excuse_cpu_wait) return false;
    const auto waited = std::chrono::duration_cast<Clock::duration>(TimeWaitingForCpu(s.child.pid));
    const Clock::time_point latest = s.started + s.job->timeout * s.job->max_excused_factor;
    s.deadline = std::min(s.started + s.job->timeout + waited, latest);
    return s.deadline > now;
  }

  // The main process has exited (it is a zombie until reaped, so its pid,
  // the group's id, cannot be reused while we signal the group).
  void Finish(Slot& s) {
    ReadStdout(s, kDrainReads);
    ReadStderr(s, kDrainReads);
    SignalGroup(s, SIGKILL);
    const int status = WaitChild(s.child.pid);
    JobOutcome& o = s.outcome;
    if (WIFEXITED(status)) {
      o.end = JobEnd::kExited;
      o.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      o.end = JobEnd::kSignaled;
      o.term_signal = WTERMSIG(status);
    }
    if (s.stop_reason) o.end = *s.stop_reason;
    o.elapsed = Elapsed(s);
    s.child = Child();
    s.pidfd.Reset();
    s.state = State::kDone;
    --running_;
  }

  static std::chrono::microseconds Elapsed(const Slot& s) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - s.started);
  }

  std::vector<Slot> slots_;
  int cancel_fd_;
  std::size_t max_running_;
  std::size_t running_ = 0;
  bool cancel_seen_ = false;
  std::vector<pollfd> fds_;
  std::vector<std::pair<std::size_t, Kind>> owners_;
  std::unique_ptr<std::array<char, kChunk>> buffer_ = std::make_unique<std::array<char, kChunk>>();
};

}  // namespace

std::vector<JobOutcome> RunAll(const std::vector<Job>& jobs, int cancel_fd,
                               std::size_t max_running) {
  IgnoreSigpipe();
  std::vector<JobOutcome> outcomes = Runner(jobs, cancel_fd, max_running).Run();
  // What earlier calls left running and has ended since (the host adopts
  // orphans: host_guard.h) is waited for here, between calls.
  ReapAdopted();
  return outcomes;
}

}  // namespace ikigai::spawning
