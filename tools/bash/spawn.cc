#include "spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/io.h"
#include "base/process_info.h"

namespace ikigai::bash_tool {
namespace {

// Variables the tool sets for the command, replacing inherited values, and
// the deadline, which is the tool's business and not the command's.
constexpr std::string_view kReplaced[] = {
    "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", "IKIGAI_TOOL_DEADLINE_MS", "PWD"};

std::string AbsoluteDirectory(const std::string& dir) {
  if (dir.empty() || dir[0] == '/') return dir;
  std::string cwd(4096, '\0');
  if (::getcwd(cwd.data(), cwd.size()) == nullptr) return {};
  cwd.resize(std::strlen(cwd.c_str()));
  return cwd + "/" + dir;
}

std::vector<std::string> ChildEnvironment(const std::string& working_directory) {
  std::vector<std::string> env;
  std::string pwd;
  if (!working_directory.empty()) {
    pwd = AbsoluteDirectory(working_directory);
  } else if (const char* inherited = std::getenv("PWD")) {
    pwd = inherited;  // the shell checks it against its real directory
  }
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view var(*entry);
    const std::string_view name = var.substr(0, var.find('='));
    bool replaced = false;
    for (std::string_view r : kReplaced) replaced = replaced || name == r;
    if (!replaced) env.emplace_back(var);
  }
  env.emplace_back("PAGER=cat");
  env.emplace_back("GIT_PAGER=cat");
  env.emplace_back("GIT_TERMINAL_PROMPT=0");
  env.emplace_back("GIT_EDITOR=true");
  if (!pwd.empty()) env.push_back("PWD=" + pwd);
  return env;
}

// Moves `fd` above 0-2 so that dup2 onto 1 and 2 in the child always makes a
// fresh descriptor (dup2(fd, fd) would keep O_CLOEXEC and lose the pipe).
int AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

void WriteString(int fd, const char* s) {
  if (s != nullptr && ::write(fd, s, std::strlen(s)) < 0) {
    // Nothing more to do: the child is about to exit 127.
  }
}

// Between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecShell(pid_t tool, int output, const char* dir, char* const argv[],
                            char* const envp[]) {
  ::setsid();
  // If the tool is killed outright (SIGKILL, no chance to clean up), the
  // shell goes with it rather than run on unwatched. This reaches the shell
  // only (and the program it execs), not processes it started.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != tool) ::_exit(127);  // the tool died before prctl
  // Dispositions set to "ignore" and blocked signals survive exec; the
  // command must see the defaults (`yes | head` relies on SIGPIPE).
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0 && null != STDIN_FILENO) {
    ::dup2(null, STDIN_FILENO);
    ::close(null);
  }
  ::dup2(output, STDOUT_FILENO);
  ::dup2(output, STDERR_FILENO);
  if (::close_range(3, ~0U, 0) != 0) {
    struct rlimit limit {};
    rlim_t max = 65536;
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < max) max = limit.rlim_cur;
    for (rlim_t fd = 3; fd < max; ++fd) ::close(static_cast<int>(fd));
  }
  if (dir != nullptr && ::chdir(dir) != 0) {
    const int err = errno;
    WriteString(STDERR_FILENO, "sh: cannot change to working directory ");
    WriteString(STDERR_FILENO, dir);
    WriteString(STDERR_FILENO, ": ");
    WriteString(STDERR_FILENO, ::strerrordesc_np(err));
    ::_exit(127);
  }
  ::execve("/bin/sh", argv, envp);
  const int err = errno;
  WriteString(STDERR_FILENO, "ikigai: cannot execute /bin/sh: ");
  WriteString(STDERR_FILENO, ::strerrordesc_np(err));
  ::_exit(127);
}

// The command's session may leave background jobs running after the tool
// answers. The host's guard (src/spawning/host_guard.h) ends what is left
// of the sessions registered here when the host ends, however it ends.
// The file holds the leader's start time, so that the guard can tell the
// session from a later one that got the same number.
void RegisterWithHost(pid_t session) {
  const char* dir = std::getenv("IKIGAI_SESSION_DIR");
  if (dir == nullptr || *dir != '/') return;
  const std::string groups = std::string(dir) + "/process-groups";
  ::mkdir(groups.c_str(), 0700);
  const int fd = ::open((groups + "/" + std::to_string(session)).c_str(),
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  ProcessInfo leader;
  if (ReadProcessInfo(session, leader)) WriteAll(fd, std::to_string(leader.start));
  ::close(fd);
}

}  // namespace

Result<Shell, std::string> SpawnShell(const SpawnRequest& request) {
  // Everything the child needs is built before fork: it may not allocate.
  std::string command = request.command;
  std::string sh = "sh", dash_c = "-c";
  char* const argv[] = {sh.data(), dash_c.data(), command.data(), nullptr};
  std::vector<std::string> env = ChildEnvironment(request.working_directory);
  std::vector<char*> envp;
  for (auto& var : env) envp.push_back(var.data());
  envp.push_back(nullptr);
  const char* dir = request.working_directory.empty() ? nullptr : request.working_directory.c_str();

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return Err(std::string("ikigai: cannot create a pipe: ") + std::strerror(errno));
  }
  UniqueFd read_end(AboveStdio(fds[0]));
  UniqueFd write_end(AboveStdio(fds[1]));
  if (!read_end.valid() || !write_end.valid()) {
    return Err(std::string("ikigai: cannot create a pipe: ") + std::strerror(errno));
  }
  // If the host left SIGCHLD ignored, children would be reaped by the kernel
  // and their exit status lost.
  ::signal(SIGCHLD, SIG_DFL);

  const pid_t tool = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    return Err(std::string("ikigai: cannot start /bin/sh (fork failed: ") + std::strerror(errno) +
               "). The system may be out of processes or memory; try again later.");
  }
  if (pid == 0) ExecShell(tool, write_end.get(), dir, argv, envp.data());
  RegisterWithHost(pid);  // setsid in the child makes its pid the session's id

  write_end.Reset();
  ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);
  Shell shell;
  shell.pid = pid;
  shell.output = std::move(read_end);
  shell.exited.Reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  return shell;
}

}  // namespace ikigai::bash_tool
