// The supervisor of a background command (background.h says what it does
// and why). It is kept small: no thread, no state beyond the shell's pid,
// and every wait bounded.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "background.h"
#include "base/format.h"
#include "base/io.h"
#include "base/task_files.h"
#include "base/unique_fd.h"
#include "spawn.h"
#include "spawning/spawn.h"

namespace ikigai::bash_tool {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// After SIGTERM, how long the command's group has to end before SIGKILL.
constexpr milliseconds kKillGrace{2000};
// After SIGKILL, how long to wait for the shell's exit status.
constexpr milliseconds kReapWait{1000};
// How often to look for the shell's exit where there is no pidfd (< 5.3).
constexpr milliseconds kExitCheckInterval{100};

int PollTimeout(Clock::time_point until) {
  const auto left = std::chrono::ceil<milliseconds>(until - Clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, 60'000));
}

int ExitCode(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// The shell's output goes to the task's output file, not to the pipe Spawn
// made. Runs between clone and exec: system calls only.
int OutputToFile(void* context) {
  const int fd = *static_cast<const int*>(context);
  if (::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) return errno;
  return 0;
}

// Why the command is being stopped.
enum class Stop { kKill, kSignal, kTimeout, kGone };

class Supervisor {
 public:
  Supervisor(std::string task_dir, tasks::TaskStatus status)
      : task_dir_(std::move(task_dir)), status_(std::move(status)) {}

  int Run(const std::string& working_directory, long long timeout_ms, const std::string& command) {
    output_.Reset(::open((task_dir_ + "/output").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (!StartShell(working_directory, command)) return Finish(tasks::kCompleted, 127);
    const Clock::time_point timeout_at =
        timeout_ms > 0 ? Clock::now() + milliseconds(timeout_ms) : Clock::time_point::max();
    for (;;) {
      if (Reap(WNOHANG)) return Finish(tasks::kCompleted, ExitCode(shell_status_));
      if (Clock::now() >= timeout_at) {
        Say("\n[ikigai: timeout_seconds (" + FormatDuration(milliseconds(timeout_ms)) +
            ") passed: the command's process group was killed]\n");
        return StopCommand(Stop::kTimeout);
      }
      pollfd fds[4] = {{STDIN_FILENO, POLLIN, 0},
                       {signals_.get(), POLLIN, 0},
                       {watch_.get(), POLLIN, 0},
                       {exited_.get(), POLLIN, 0}};
      const nfds_t n = exited_.valid() ? 4 : 3;
      Clock::time_point until = timeout_at;
      if (!exited_.valid()) until = std::min(until, Clock::now() + kExitCheckInterval);
      if (::poll(fds, n, PollTimeout(until)) < 0 && errno != EINTR) ::usleep(10'000);
      if ((fds[0].revents & POLLIN) && KillAsked()) return StopCommand(Stop::kKill);
      if (fds[1].revents & POLLIN) return StopCommand(Stop::kSignal);
      if ((fds[2].revents & POLLIN) && DirectoryGone()) return StopCommand(Stop::kGone);
    }
  }

  // Set up before the shell starts, so that no signal or removal is missed.
  void Prepare() {
    sigset_t stop;
    sigemptyset(&stop);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stop, sig);
    ::sigprocmask(SIG_BLOCK, &stop, nullptr);
    signals_.Reset(::signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK));
    watch_.Reset(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
    if (watch_.valid())
      ::inotify_add_watch(watch_.get(), task_dir_.c_str(),
                          IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF);
    ::fcntl(STDIN_FILENO, F_SETFL, ::fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
  }

 private:
  bool StartShell(const std::string& working_directory, const std::string& command) {
    if (!output_.valid()) return false;
    int output_fd = output_.get();
    spawning::SpawnRequest spawn;
    spawn.path = "/bin/sh";
    spawn.argv = {"sh", "-c", command};
    spawn.env = CommandEnvironment(working_directory);
    spawn.cwd = working_directory;
    spawn.pipe_stdin = false;
    // Its own group, inside the supervisor's session (registered with the
    // host's guard, and without a controlling terminal).
    spawn.new_session = false;
    spawn.merge_stderr = true;
    spawn.pre_exec = OutputToFile;
    spawn.pre_exec_context = &output_fd;
    // A supervisor killed outright takes the shell with it; what the shell
    // started is the host guard's business then.
    spawn.parent_death_signal = SIGKILL;
    auto child = spawning::Spawn(spawn);
    if (!child) {
      Say("ikigai: cannot start /bin/sh (" + child.error() + ")\n");
      return false;
    }
    shell_ = child->pid;
    exited_.Reset(static_cast<int>(::syscall(SYS_pidfd_open, shell_, 0)));
    return true;
  }

  // Reads what is on the control FIFO; whether a line says "kill". Other
  // lines are ignored (a later owner may send more kinds).
  bool KillAsked() {
    char bytes[256];
    for (;;) {
      const ssize_t n = ::read(STDIN_FILENO, bytes, sizeof bytes);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending_.append(bytes, static_cast<std::size_t>(n));
    }
    bool kill = false;
    for (std::size_t end; (end = pending_.find('\n')) != std::string::npos;
         pending_.erase(0, end + 1)) {
      kill = kill || pending_.compare(0, end, "kill") == 0;
    }
    if (pending_.size() > 4096) pending_.clear();  // no line that long is ours
    return kill;
  }

  // Whether the task's record is gone (the session ended, or the task was
  // removed). IN_DELETE_SELF alone would not do: it comes only once the
  // directory's last reference goes, and the output file this process holds
  // open keeps one; the files within are deleted first, each an IN_DELETE.
  bool DirectoryGone() {
    alignas(inotify_event) char events[4096];
    while (::read(watch_.get(), events, sizeof events) > 0) {
    }
    struct stat st {};
    return ::stat((task_dir_ + "/status.json").c_str(), &st) != 0 && errno == ENOENT;
  }

  // Whether the shell has exited (and its status is in shell_status_).
  // Reaps every child that has ended: the supervisor is a subreaper, so
  // what the command left behind becomes its child when the shell ends,
  // and must not stay a zombie in the group (which would then never look
  // empty).
  bool Reap(int flags) {
    const auto reap = [this](pid_t which, int options) {
      for (;;) {
        int status = 0;
        const pid_t r = ::waitpid(which, &status, options);
        if (r < 0 && errno == EINTR) continue;
        if (r == shell_) {
          reaped_ = true;
          shell_status_ = status;
        } else if (r < 0 && which == shell_) {
          reaped_ = true;  // ECHILD: cannot happen, as nobody else waits for it
          shell_status_ = 127 << 8;
        }
        return r;
      }
    };
    if (!reaped_) reap(shell_, flags);
    while (reap(-1, WNOHANG) > 0) {
    }
    return reaped_;
  }

  // Waits until the shell has exited or `until`; whether it has.
  bool WaitShell(Clock::time_point until) {
    while (!Reap(WNOHANG) && Clock::now() < until) {
      if (exited_.valid()) {
        pollfd fd{exited_.get(), POLLIN, 0};
        ::poll(&fd, 1, PollTimeout(until));
      } else {
        ::usleep(10'000);
      }
    }
    return reaped_;
  }

  // The whole group: SIGTERM, a grace to end, then SIGKILL for what is
  // left. The shell leads the group; a member that left it (setsid) is the
  // host guard's to end with the session.
  int StopCommand(Stop why) {
    const auto signal_group = [this](int sig) {
      if (::kill(-shell_, sig) != 0 && !reaped_) ::kill(shell_, sig);
    };
    signal_group(SIGTERM);
    const Clock::time_point grace_end = Clock::now() + kKillGrace;
    WaitShell(grace_end);
    // Members other than the shell may take their time too, within the same
    // grace; the group is empty once none is left to signal.
    while (Clock::now() < grace_end && (Reap(WNOHANG), ::kill(-shell_, 0) == 0)) {
      ::usleep(20'000);
    }
    signal_group(SIGKILL);
    const Clock::time_point reap_end = Clock::now() + kReapWait;
    WaitShell(reap_end);
    while (Clock::now() < reap_end && (Reap(WNOHANG), ::kill(-shell_, 0) == 0)) {
      ::usleep(10'000);
    }
    if (why == Stop::kGone) return 0;  // nowhere to record it
    // A shell stuck in the kernel dies later; the record must not wait.
    return Finish(tasks::kKilled, reaped_ ? ExitCode(shell_status_) : 128 + SIGKILL);
  }

  int Finish(std::string_view state, int exit_code) {
    status_.status = std::string(state);
    status_.exit_code = exit_code;
    status_.ended_ms = tasks::NowMs();
    return tasks::WriteStatus(task_dir_, status_) ? 0 : 1;
  }

  // A line of ikigai's own in the output, where the command's reader looks.
  void Say(const std::string& text) {
    if (output_.valid()) WriteAll(output_.get(), text);
  }

  std::string task_dir_;
  tasks::TaskStatus status_;
  UniqueFd output_;
  UniqueFd signals_;
  UniqueFd watch_;
  UniqueFd exited_;
  pid_t shell_ = -1;
  bool reaped_ = false;
  int shell_status_ = 0;
  std::string pending_;
};

}  // namespace

int RunSupervisor(int argc, char** argv) {
  if (argc != 6) return 2;
  const std::string task_dir = argv[2];
  char* end = nullptr;
  const long long timeout_ms = std::strtoll(argv[4], &end, 10);
  if (*end != '\0' || timeout_ms < 0) return 2;
  // Seen as such in ps, rather than as a second bash-tool.
  ::prctl(PR_SET_NAME, "ikigai-task");
  ::signal(SIGPIPE, SIG_IGN);
  // If the host left SIGCHLD ignored, the shell would be reaped by the
  // kernel and its exit status lost.
  ::signal(SIGCHLD, SIG_DFL);
  // What the command leaves behind when its shell ends becomes this
  // process's child (not init's, which may never reap it), so that the
  // group can be seen empty and nothing stays a zombie.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  auto status = tasks::ReadStatus(task_dir);
  if (!status) return 1;  // the task was removed before it could start
  Supervisor supervisor(task_dir, std::move(*status));
  supervisor.Prepare();
  return supervisor.Run(argv[3], timeout_ms, argv[5]);
}

}  // namespace ikigai::bash_tool
