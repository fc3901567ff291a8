#include "spawning/host_guard.h"

#include "base/io.h"
#include "base/process_info.h"
#include "spawning/spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "sandbox/workspace.h"

extern char** environ;

namespace ikigai::spawning {
namespace {

using Clock = std::chrono::steady_clock;

// How often the guard looks at the host's descendants while tools run
// (more often just after a wake, when tools are starting), and how long
// after a wake it keeps looking even if it saw none yet.
constexpr int kWatchIntervalMs = 200;
constexpr int kStartingIntervalMs = 20;
constexpr std::chrono::milliseconds kStarting{300};
constexpr std::chrono::seconds kWatchAfterWake{2};
// Messages on the pipe, a line each: "p<pid>", a tool process started.
// Rounds of killing after the host ended (new children of a dying tree).
constexpr int kKillRounds = 50;

// The hidden first argument that makes the executable a guard.
constexpr const char* kGuardMode = "--ikigai-host-guard";

int g_wake_fd = -1;

using Process = ProcessInfo;

bool ReadProcess(pid_t pid, Process& process) { return ReadProcessInfo(pid, process); }

std::vector<Process> AllProcesses() {
  std::vector<Process> all;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return all;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    Process process;
    if (ReadProcess(static_cast<pid_t>(pid), process)) all.push_back(process);
  }
  ::closedir(proc);
  return all;
}

// What the guard has seen of the host's descendants.
class Watch {
 public:
  Watch(pid_t host, pid_t host_group, pid_t host_session, unsigned long long host_start)
      : host_(host), host_group_(host_group), host_session_(host_session), since_(host_start) {}

  // Notes one process the host started, if it still runs.
  void NoteStarted(pid_t pid) {
    Process p;
    if (ReadProcess(pid, p)) Remember(p);
  }

  // Notes the host's descendants now; whether there are any.
  bool Note() {
    const std::vector<Process> all = AllProcesses();
    std::set<pid_t> tree = {host_};
    bool grew = true;
    bool any = false;
    while (grew) {
      grew = false;
      for (const Process& p : all) {
        if (p.pid == ::getpid() || tree.contains(p.pid) || !tree.contains(p.parent)) continue;
        tree.insert(p.pid);
        Remember(p);
        grew = any = true;
      }
    }
    return any;
  }

  // Kills, round after round, whatever is left of what was noted: the same
  // processes (same start time), their groups and sessions (not the host's
  // own, which hold the user's shell), and their descendants.
  void KillAll(const std::string& session_dir) {
    AddRegistered(session_dir);
    for (int round = 0; round < kKillRounds; ++round) {
      const std::vector<Process> all = AllProcesses();
      std::map<pid_t, unsigned long long> started;  // pid -> start time, now
      for (const Process& p : all) started[p.pid] = p.start;
      std::set<pid_t> victims;
      for (const Process& p : all) {
        if (p.pid == ::getpid() || p.pid == 1 || p.start < since_) continue;
        const auto seen = noted_.find(p.pid);
        if ((seen != noted_.end() && seen->second == p.start) ||
            StillNoted(groups_, p.group, started) || StillNoted(sessions_, p.session, started) ||
            CarriesSession(p.pid, session_dir)) {
          victims.insert(p.pid);
        }
      }
      for (bool grew = true; grew;) {
        grew = false;
        for (const Process& p : all) {
          if (p.pid != ::getpid() && !victims.contains(p.pid) && victims.contains(p.parent)) {
            victims.insert(p.pid);
            grew = true;
          }
        }
      }
      if (victims.empty()) return;
      for (pid_t pid : victims) {
        Process p;
        if (ReadProcess(pid, p)) Remember(p);  // its children, next round
        ::kill(pid, SIGKILL);
      }
      ::usleep(10'000);
    }
  }

 private:
  // Tools that leave processes running after they answer (the bash tool's
  // background jobs) name their process group or session in
  // IKIGAI_SESSION_DIR/process-groups/, a file per number holding the
  // leader's start time where the tool could read it.
  void AddRegistered(const std::string& session_dir) {
    if (session_dir.empty()) return;
    const std::string groups = session_dir + "/process-groups";
    DIR* dir = ::opendir(groups.c_str());
    if (dir == nullptr) return;
    while (const dirent* entry = ::readdir(dir)) {
      char* end = nullptr;
      const long id = std::strtol(entry->d_name, &end, 10);
      if (id <= 1 || *end != '\0' || id == host_group_ || id == host_session_) continue;
      const unsigned long long leader_start = ReadStartTime(groups + "/" + entry->d_name);
      groups_.emplace(static_cast<pid_t>(id), leader_start);
      sessions_.emplace(static_cast<pid_t>(id), leader_start);
    }
    ::closedir(dir);
  }

  void Remember(const Process& p) {
    noted_[p.pid] = p.start;
    if (p.group != host_group_ && p.group != ::getpgrp() && !groups_.contains(p.group)) {
      groups_[p.group] = LeaderStart(p, p.group);
    }
    if (p.session != host_session_ && p.session != ::getsid(0) && !sessions_.contains(p.session)) {
      sessions_[p.session] = LeaderStart(p, p.session);
    }
  }

  // The start time of process `id`, the leader of a group or session of
  // that number which `member` belongs to; 0 when unknown.
  static unsigned long long LeaderStart(const Process& member, pid_t id) {
    if (member.pid == id) return member.start;
    Process leader;
    return ReadProcess(id, leader) ? leader.start : 0;
  }

  // Whether the process has this session's IKIGAI_SESSION_DIR in its
  // environment: every tool process gets it, and what they start inherits
  // it, so a daemon that left the tree (double fork, new session) between
  // two looks is still known as ours.
  static bool CarriesSession(pid_t pid, const std::string& session_dir) {
    if (session_dir.empty()) return false;
    const std::string path = "/proc/" + std::to_string(pid) + "/environ";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    std::string environment;
    ReadAll(fd, environment, 1 << 20);
    ::close(fd);
    const std::string entry = "IKIGAI_SESSION_DIR=" + session_dir;
    for (std::size_t at = 0; (at = environment.find(entry, at)) != std::string::npos; ++at) {
      const std::size_t end = at + entry.size();
      if ((at == 0 || environment[at - 1] == '\0') &&
          (end == environment.size() || environment[end] == '\0')) {
        return true;
      }
    }
    return false;
  }

  static unsigned long long ReadStartTime(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return 0;
    char text[32] = {};
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    return n > 0 ? std::strtoull(text, nullptr, 10) : 0;
  }

  // Whether the group (or session) `id` is still the one that was noted.
  // Its number is its leader's pid: the kernel keeps it while any member
  // lives, but once all have ended a new process may get it (in a long
  // session pids come round again). A leader alive with another start time
  // is such a newcomer, and it and its group are left alone.
  static bool StillNoted(const std::map<pid_t, unsigned long long>& noted, pid_t id,
                         const std::map<pid_t, unsigned long long>& started) {
    const auto it = noted.find(id);
    if (it == noted.end()) return false;
    const auto leader = started.find(id);
    return it->second == 0 || leader == started.end() || leader->second == it->second;
  }

  pid_t host_, host_group_, host_session_;
  unsigned long long since_;
  std::map<pid_t, unsigned long long> noted_;  // pid -> start time
  // Group and session ids -> their leader's start time (0: unknown).
  std::map<pid_t, unsigned long long> groups_, sessions_;
};

// The host as the guard sees it, told by the host itself: by the time the
// guard runs, the host may have ended already (a quick `ikigai tool list`).
struct Host {
  pid_t pid = 0;
  pid_t group = 0;
  pid_t session = 0;
  unsigned long long start = 0;
};

[[noreturn]] void GuardMain(int read_fd, const Host& host, const std::string& session_dir) {
  // Out of the terminal's reach: its own session, no descriptor of the
  // host's (a pipe a test reads to EOF must not be held open by the guard).
  ::setsid();
  for (int sig : {SIGINT, SIGHUP, SIGTERM, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE}) {
    ::signal(sig, SIG_IGN);
  }
  ::prctl(PR_SET_NAME, "ikigai-guard");
  const int null = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
  ::close_range(read_fd + 1, ~0U, 0);

  Watch watch(host.pid, host.group, host.session, host.start);
  Clock::time_point woken{};
  bool watching = false;
  std::string pending;  // a message not yet complete
  for (;;) {
    const int interval = Clock::now() - woken < kStarting ? kStartingIntervalMs : kWatchIntervalMs;
    pollfd fd{read_fd, POLLIN, 0};
    const int ready = ::poll(&fd, 1, watching ? interval : -1);
    if (ready > 0) {
      char bytes[512];
      const ssize_t n = ::read(read_fd, bytes, sizeof bytes);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;  // the host died
      pending.append(bytes, n > 0 ? static_cast<std::size_t>(n) : 0);
      for (std::size_t end; (end = pending.find('\n')) != std::string::npos;
           pending.erase(0, end + 1)) {
        if (pending[0] == 'p') watch.NoteStarted(std::atoi(pending.c_str() + 1));
        watching = true;
        woken = Clock::now();
      }
    }
    if (watching) watching = watch.Note() || Clock::now() - woken < kWatchAfterWake;
  }
  watch.KillAll(session_dir);
  if (!session_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(session_dir, ignored);
  }
  ::_exit(0);
}

std::string MakeSessionDirectory() {
  // Where the sandbox lets tools write temporary files (a TMPDIR that is
  // $HOME, say, is not): the bash tool keeps its output there.
  const std::string tmp = sandbox::TempDirectory(sandbox::ProcessEnvironment());
  std::string pattern = (tmp[0] == '/' ? tmp : "/tmp") + "/ikigai-session-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return "";  // mode 0700
  return pattern;
}

}  // namespace

std::string StartHostGuard() {
  if (g_wake_fd >= 0) {
    const char* dir = std::getenv("IKIGAI_SESSION_DIR");
    return dir != nullptr ? dir : "";
  }
  std::string session_dir = MakeSessionDirectory();
  if (!session_dir.empty()) {
    ::setenv("IKIGAI_SESSION_DIR", session_dir.c_str(), 1);
    // The directory's unique part names the session for tools.
    const std::string id = session_dir.substr(session_dir.rfind('-') + 1);
    ::setenv("IKIGAI_SESSION_ID", id.c_str(), 1);
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return session_dir;
  // Orphans of the host's descendants (a daemon's double fork, `setsid -f`)
  // become the host's children instead of init's, so they stay in the tree
  // the guard watches. spawning::ReapAdopted waits for them.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  Process self;
  if (!ReadProcess(::getpid(), self)) self = {::getpid(), 0, ::getpgrp(), ::getsid(0), 0};
  // A fresh image of this executable, not a fork: a forked guard would share
  // the host's pages, and every page the host then writes would be copied
  // (tens of milliseconds on a short command).
  std::string pid = std::to_string(self.pid), group = std::to_string(self.group),
              session = std::to_string(self.session), start = std::to_string(self.start);
  std::string mode(kGuardMode);
  std::string exe = "/proc/self/exe";
  char* argv[] = {exe.data(),     mode.data(),  pid.data(),         group.data(),
                  session.data(), start.data(), session_dir.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 3);  // clears close-on-exec
  pid_t pid_guard = -1;
  const int error = ::posix_spawn(&pid_guard, exe.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (error != 0) {
    ::close(fds[1]);
    return session_dir;
  }
  KeepChild(pid_guard);
  ::fcntl(fds[1], F_SETFL, O_NONBLOCK);
  g_wake_fd = fds[1];
  return session_dir;
}

int RunHostGuardIfAsked(int argc, char** argv) {
  if (argc != 7 || std::strcmp(argv[1], kGuardMode) != 0) return -1;
  const Host host{static_cast<pid_t>(std::atoi(argv[2])), static_cast<pid_t>(std::atoi(argv[3])),
                  static_cast<pid_t>(std::atoi(argv[4])), std::strtoull(argv[5], nullptr, 10)};
  GuardMain(3, host, argv[6]);
}

void TellHostGuard(pid_t pid) {
  if (g_wake_fd < 0) return;
  char line[32];
  const int n = std::snprintf(line, sizeof line, "p%d\n", static_cast<int>(pid));
  // One write below PIPE_BUF is never split. The pipe is full only if the
  // guard is stuck or gone; its scans still see the process then.
  [[maybe_unused]] const ssize_t written = ::write(g_wake_fd, line, static_cast<std::size_t>(n));
}

}  // namespace ikigai::spawning
