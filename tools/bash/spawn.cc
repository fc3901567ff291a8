#include "spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/io.h"
#include "base/process_info.h"
#include "spawning/spawn.h"

namespace ikigai::bash_tool {
namespace {

std::string AbsoluteDirectory(const std::string& dir) {
  if (dir.empty() || dir[0] == '/') return dir;
  std::string cwd(4096, '\0');
  if (::getcwd(cwd.data(), cwd.size()) == nullptr) return {};
  cwd.resize(std::strlen(cwd.c_str()));
  return cwd + "/" + dir;
}

}  // namespace

std::vector<std::string> CommandEnvironment(const std::string& working_directory) {
  std::vector<std::pair<std::string, std::string>> set = {
      {"PAGER", "cat"}, {"GIT_PAGER", "cat"}, {"GIT_TERMINAL_PROMPT", "0"}, {"GIT_EDITOR", "true"}};
  std::string pwd;
  if (!working_directory.empty()) {
    pwd = AbsoluteDirectory(working_directory);
  } else if (const char* inherited = std::getenv("PWD")) {
    pwd = inherited;  // the shell checks it against its real directory
  }
  if (!pwd.empty()) set.emplace_back("PWD", pwd);
  return spawning::EnvironmentWith(set, {"IKIGAI_TOOL_DEADLINE_MS", "PWD"});
}

void RegisterWithHost(pid_t session) {
  // The file holds the leader's start time, so that the guard can tell the
  // session from a later one that got the same number.
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

Result<Shell, std::string> SpawnShell(const SpawnRequest& request) {
  spawning::SpawnRequest spawn;
  spawn.path = "/bin/sh";
  spawn.argv = {"sh", "-c", request.command};
  spawn.env = CommandEnvironment(request.working_directory);
  spawn.cwd = request.working_directory;
  spawn.pipe_stdin = false;
  spawn.new_session = true;
  spawn.merge_stderr = true;
  // If the tool is killed outright (SIGKILL, no chance to clean up), the
  // shell goes with it rather than run on unwatched. This reaches the shell
  // only (and the program it execs), not processes it started: the host's
  // guard ends those.
  spawn.parent_death_signal = SIGKILL;
  // If the host left SIGCHLD ignored, children would be reaped by the kernel
  // and their exit status lost.
  ::signal(SIGCHLD, SIG_DFL);
  auto child = spawning::Spawn(spawn);
  if (!child) {
    return Err("ikigai: cannot start /bin/sh (" + child.error() +
               "). The system may be out of processes or memory; try again later.");
  }
  // The command's session may leave background jobs running after the tool
  // answers; setsid in the child makes its pid the session's id.
  RegisterWithHost(child->pid);
  Shell shell;
  shell.pid = child->pid;
  shell.output = std::move(child->stdout_fd);
  shell.exited.Reset(static_cast<int>(::syscall(SYS_pidfd_open, child->pid, 0)));
  return shell;
}

}  // namespace ikigai::bash_tool
