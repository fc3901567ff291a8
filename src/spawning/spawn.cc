// The child of clone(CLONE_VM | CLONE_VFORK) runs in the parent's memory
// until it calls execve, while the parent's thread waits. So it must not
// allocate, lock, or touch anything another thread might hold: the parent
// prepares every string and array first, the child runs on a stack of its
// own (mmap'd, with a guard page) and makes only system calls. It reports a
// failure by writing the step and errno into a struct in the parent's
// memory, then _exit(127); the parent reaps it and turns that into words.
//
// Signals: a signal delivered to the child before exec would run one of the
// parent's handlers on the parent's data. So the parent blocks every signal
// around clone, the child sets every disposition to the default, and only
// then unblocks, just before execve.
#include "spawning/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string_view>

namespace ikigai::spawning {
namespace {

constexpr std::size_t kChildStackBytes = 64 * 1024;

// Code that runs in the child is not instrumented by AddressSanitizer: it
// runs on a stack ASan does not know, and never returns, so it must leave
// no poisoned shadow memory behind.
#define IKIGAI_CHILD_CODE __attribute__((no_sanitize("address")))

enum class Step { kNone, kSetpgid, kParentGone, kStdio, kCloseFds, kChdir, kPreExec, kExec };

// Everything the child reads (prepared by the parent) and the one thing it
// writes (why it failed).
struct ChildPlan {
  const char* path;
  char* const* argv;
  char* const* envp;
  const char* cwd;  // null: stay
  int stdin_fd;     // all three above 2, so dup2 never meets itself
  int stdout_fd;
  int stderr_fd;  // may be stdout_fd
  bool new_session;
  int parent_death_signal;
  pid_t parent;
  int (*pre_exec)(void*);
  void* pre_exec_context;
  int fd3;  // placed at 3 and kept open; -1: none
  Step failed_step;
  int failed_errno;
};

[[noreturn]] IKIGAI_CHILD_CODE void ChildFail(ChildPlan* plan, Step step, int error) {
  plan->failed_step = step;
  plan->failed_errno = error;
  ::_exit(127);
}

// Closes every descriptor from 3 up, or from 4 up once fd3 is in place.
IKIGAI_CHILD_CODE void CloseFrom3(ChildPlan* plan) {
  unsigned first = 3;
  if (plan->fd3 >= 0) {
    // dup2 onto itself would keep close-on-exec: clear it then.
    if (plan->fd3 == 3 ? ::fcntl(3, F_SETFD, 0) < 0 : ::dup2(plan->fd3, 3) < 0)
      ChildFail(plan, Step::kCloseFds, errno);
    first = 4;
  }
  if (::close_range(first, ~0U, 0) == 0) return;
  if (errno != ENOSYS && errno != EINVAL) ChildFail(plan, Step::kCloseFds, errno);
  // Kernels before 5.9: close them one by one.
  rlimit limit{};
  rlim_t end = 65536;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < end) end = limit.rlim_cur;
  for (rlim_t fd = first; fd < end; ++fd) ::close(static_cast<int>(fd));
}

// The kernel's struct sigaction (not glibc's, whose mask is larger).
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  unsigned long mask;
};

IKIGAI_CHILD_CODE int ChildMain(void* arg) {
  auto* plan = static_cast<ChildPlan*>(arg);
  if ((plan->new_session ? ::setsid() : ::setpgid(0, 0)) < 0) {
    ChildFail(plan, Step::kSetpgid, errno);
  }
  if (plan->parent_death_signal != 0) {
    ::prctl(PR_SET_PDEATHSIG, plan->parent_death_signal);
    if (::getppid() != plan->parent) ChildFail(plan, Step::kParentGone, ESRCH);
  }
  if (::dup2(plan->stdin_fd, STDIN_FILENO) < 0 || ::dup2(plan->stdout_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan->stderr_fd, STDERR_FILENO) < 0) {
    ChildFail(plan, Step::kStdio, errno);
  }
  // Ignored signals stay ignored across exec, and a handler must not run
  // here. The raw system call also reaches the two real-time signals glibc
  // keeps for itself (32, 33), which a parent may have left ignored and
  // glibc's sigaction() refuses to touch; SIGKILL and SIGSTOP refuse, harmlessly.
  const KernelSigaction default_action{SIG_DFL, 0, nullptr, 0};
  for (int sig = 1; sig < NSIG; ++sig) {
    ::syscall(SYS_rt_sigaction, sig, &default_action, nullptr, sizeof default_action.mask);
  }
  if (plan->cwd != nullptr && ::chdir(plan->cwd) != 0) ChildFail(plan, Step::kChdir, errno);
  // The pre-exec step runs while the parent's descriptors are still open:
  // it may use descriptors the parent prepared for it (a Landlock ruleset),
  // which are close-on-exec and closed just after it anyway.
  if (plan->pre_exec != nullptr) {
    const int error = plan->pre_exec(plan->pre_exec_context);
    if (error != 0) ChildFail(plan, Step::kPreExec, error);
  }
  CloseFrom3(plan);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(plan->path, plan->argv, plan->envp);
  ChildFail(plan, Step::kExec, errno);
}

// The children the host knows it started, so that ReapAdopted never takes
// the exit status a WaitChild is due: a child is added while the lock is
// held from clone to registration, and removed as it is reaped.
std::mutex g_children_mutex;
std::set<pid_t> g_own_children;

int WaitLocked(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_own_children.erase(pid);
  return status;
}

// Every thread's children (a process adopted by a subreaper is the child of
// one of its threads).
std::vector<pid_t> Children() {
  std::vector<pid_t> children;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return children;
  while (const dirent* task = ::readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    const std::string path = std::string("/proc/self/task/") + task->d_name + "/children";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char text[4096];
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (n <= 0) continue;
    text[n] = '\0';
    for (char* p = text; *p != '\0';) {
      char* end = nullptr;
      const long pid = std::strtol(p, &end, 10);
      if (end == p) break;
      if (pid > 0) children.push_back(static_cast<pid_t>(pid));
      p = end;
    }
  }
  ::closedir(tasks);
  return children;
}

std::string Describe(std::string_view what, int error) {
  return std::string(what) + ": " + std::strerror(error);
}

// Moves `fd` above 0-2 (keeping O_CLOEXEC), so that in the child dup2 onto
// 0, 1 and 2 always makes a fresh descriptor without close-on-exec.
int AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Result<Pipe, std::string> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Err(Describe("pipe", errno));
  Pipe p{UniqueFd(AboveStdio(fds[0])), UniqueFd(AboveStdio(fds[1]))};
  if (!p.read_end.valid() || !p.write_end.valid()) return Err(Describe("pipe", errno));
  return p;
}

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// A child stack with a guard page below it.
class ChildStack {
 public:
  ChildStack() {
    void* p = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) return;
    base_ = static_cast<char*>(p);
    ::mprotect(base_, kGuard, PROT_NONE);
  }
  ~ChildStack() {
    if (base_ != nullptr) ::munmap(base_, kBytes);
  }
  ChildStack(const ChildStack&) = delete;
  ChildStack& operator=(const ChildStack&) = delete;
  bool valid() const { return base_ != nullptr; }
  void* top() const { return base_ + kBytes; }  // stacks grow down

 private:
  static constexpr std::size_t kGuard = 4096;
  static constexpr std::size_t kBytes = kChildStackBytes + kGuard;
  char* base_ = nullptr;
};

std::string FailureMessage(const SpawnRequest& request, Step step, int error) {
  switch (step) {
    case Step::kSetpgid:
      return Describe("a process group for " + request.path, error);
    case Step::kParentGone:
      return Describe("starting " + request.path + " (its parent is ending)", error);
    case Step::kStdio:
      return Describe("connecting stdin/stdout/stderr of " + request.path, error);
    case Step::kCloseFds:
      return Describe("closing descriptors for " + request.path, error);
    case Step::kChdir:
      return Describe("chdir " + request.cwd, error);
    case Step::kPreExec:
      return Describe("pre-exec step for " + request.path, error);
    case Step::kExec:
      return Describe("exec " + request.path, error);
    case Step::kNone:
      break;
  }
  return "spawn " + request.path + ": unknown failure";
}

}  // namespace

Result<Child, std::string> Spawn(const SpawnRequest& request) {
  // Everything the child needs, built now: it may not allocate.
  std::vector<char*> argv;
  if (request.argv.empty()) argv.push_back(const_cast<char*>(request.path.c_str()));
  for (const auto& arg : request.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& var : request.env) envp.push_back(const_cast<char*>(var.c_str()));
  envp.push_back(nullptr);

  Pipe in, out, err;
  if (request.pipe_stdin) {
    auto p = MakePipe();
    if (!p) return Err(std::move(p.error()));
    in = std::move(*p);
  } else {
    in.read_end.Reset(AboveStdio(::open("/dev/null", O_RDONLY | O_CLOEXEC)));
    if (!in.read_end.valid()) return Err(Describe("open /dev/null", errno));
  }
  for (Pipe* p : {&out, &err}) {
    if (p == &err && request.merge_stderr) continue;
    auto made = MakePipe();
    if (!made) return Err(std::move(made.error()));
    *p = std::move(*made);
  }

  ChildStack stack;
  if (!stack.valid()) return Err(Describe("allocating a stack to spawn " + request.path, errno));

  ChildPlan plan{};
  plan.path = request.path.c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.cwd = request.cwd.empty() ? nullptr : request.cwd.c_str();
  plan.stdin_fd = in.read_end.get();
  plan.stdout_fd = out.write_end.get();
  plan.stderr_fd = request.merge_stderr ? out.write_end.get() : err.write_end.get();
  plan.new_session = request.new_session;
  plan.parent_death_signal = request.parent_death_signal;
  plan.parent = ::getpid();
  plan.pre_exec = request.pre_exec;
  plan.pre_exec_context = request.pre_exec_context;
  plan.fd3 = request.fd3;
  plan.failed_step = Step::kNone;

  sigset_t all, old;
  sigfillset(&all);
  std::unique_lock lock(g_children_mutex);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  // Returns once the child has exec'd or exited (CLONE_VFORK).
  const pid_t pid = ::clone(ChildMain, stack.top(), CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  const int clone_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);

  if (pid < 0) return Err(Describe("clone for " + request.path, clone_errno));
  g_own_children.insert(pid);
  if (plan.failed_step != Step::kNone) {
    WaitLocked(pid);
    return Err(FailureMessage(request, plan.failed_step, plan.failed_errno));
  }
  lock.unlock();

  Child child;
  child.pid = pid;
  if (request.pipe_stdin) {
    child.stdin_fd = std::move(in.write_end);
    SetNonBlocking(child.stdin_fd.get());
  }
  child.stdout_fd = std::move(out.read_end);
  SetNonBlocking(child.stdout_fd.get());
  if (!request.merge_stderr) {
    child.stderr_fd = std::move(err.read_end);
    SetNonBlocking(child.stderr_fd.get());
  }
  return child;
}

int WaitChild(pid_t pid) {
  // The child has ended or is about to (its pidfd said so, or it was
  // killed): the lock is held only that long.
  std::lock_guard lock(g_children_mutex);
  return WaitLocked(pid);
}

void ReapAdopted() {
  // Only a subreaper adopts: any other process's unknown children are its
  // caller's business (a test's own helper processes).
  int subreaper = 0;
  if (::prctl(PR_GET_CHILD_SUBREAPER, &subreaper) != 0 || subreaper == 0) return;
  std::lock_guard lock(g_children_mutex);
  for (const pid_t pid : Children()) {
    if (g_own_children.contains(pid)) continue;
    int status = 0;
    ::waitpid(pid, &status, WNOHANG);
  }
}

void KeepChild(pid_t pid) {
  std::lock_guard lock(g_children_mutex);
  g_own_children.insert(pid);
}

std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::vector<std::string>& removed) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view var(*entry);
    const std::string_view name = var.substr(0, var.find('='));
    bool dropped = false;
    for (const auto& [n, v] : overrides) dropped = dropped || n == name;
    for (const auto& n : removed) dropped = dropped || n == name;
    if (!dropped) env.emplace_back(var);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
}

}  // namespace ikigai::spawning
