#include "spawning/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "spawning/test_processes.h"
#include "testing/tool_runner.h"

namespace ikigai::spawning {
namespace {

using ikigai::testing::TempDir;
using test::Script;

struct Finished {
  std::string out;
  std::string err;
  int status = -1;
};

// Reads stdout and stderr to the end, then reaps the child.
Finished Collect(Child& child) {
  child.stdin_fd.Reset();
  Finished f;
  while (child.stdout_fd.valid() || child.stderr_fd.valid()) {
    pollfd fds[2];
    UniqueFd* owners[2];
    nfds_t n = 0;
    for (auto* fd : {&child.stdout_fd, &child.stderr_fd}) {
      if (!fd->valid()) continue;
      fds[n] = {fd->get(), POLLIN, 0};
      owners[n++] = fd;
    }
    if (::poll(fds, n, 10000) <= 0) break;  // a hung child fails the test below
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r > 0) {
        (owners[i] == &child.stdout_fd ? f.out : f.err).append(buf, static_cast<std::size_t>(r));
      } else if (r == 0 || errno != EAGAIN) {
        owners[i]->Reset();
      }
    }
  }
  ::waitpid(child.pid, &f.status, 0);
  return f;
}

SpawnRequest Request(const std::string& path, std::vector<std::string> args = {}) {
  SpawnRequest r;
  r.path = path;
  r.argv = {path};
  r.argv.insert(r.argv.end(), args.begin(), args.end());
  r.env = {"PATH=/usr/bin:/bin"};
  return r;
}

TEST(SpawnTest, PassesArgvEnvironmentAndWorkingDirectory) {
  TempDir dir;
  const std::string tool =
      Script(dir, "args-tool", R"sh(printf '%s|%s|%s|%s' "$1" "$2" "$GREETING" "$(pwd)")sh");
  SpawnRequest r = Request(tool, {"one", "two words"});
  r.env.push_back("GREETING=hello there");
  r.cwd = "/usr";
  auto child = Spawn(r);
  ASSERT_TRUE(child.ok()) << child.error();
  const Finished f = Collect(*child);
  EXPECT_EQ(f.out, "one|two words|hello there|/usr");
  EXPECT_TRUE(WIFEXITED(f.status) && WEXITSTATUS(f.status) == 0);
}

TEST(SpawnTest, EnvironmentIsExactlyTheOneGiven) {
  SpawnRequest r = Request("/usr/bin/env");
  r.env = {"ONLY=this"};
  auto child = Spawn(r);
  ASSERT_TRUE(child.ok()) << child.error();
  EXPECT_EQ(Collect(*child).out, "ONLY=this\n");
}

TEST(SpawnTest, ChildLeadsItsOwnProcessGroup) {
  auto child = Spawn(Request("/bin/sleep", {"10"}));
  ASSERT_TRUE(child.ok()) << child.error();
  EXPECT_EQ(::getpgid(child->pid), child->pid);
  EXPECT_NE(::getpgid(child->pid), ::getpgrp());
  ::kill(child->pid, SIGKILL);
  const Finished f = Collect(*child);
  EXPECT_TRUE(WIFSIGNALED(f.status));
}

TEST(SpawnTest, OnlyStdinStdoutStderrAreInherited) {
  // A descriptor without close-on-exec, as a careless library might leave.
  const int leaked = ::fcntl(STDERR_FILENO, F_DUPFD, 50);
  ASSERT_GE(leaked, 50);
  auto child = Spawn(Request("/bin/ls", {"/proc/self/fd"}));
  ::close(leaked);
  ASSERT_TRUE(child.ok()) << child.error();
  const Finished f = Collect(*child);
  // ls lists 0, 1, 2 and the descriptor of the directory it is reading.
  EXPECT_EQ(f.out, "0\n1\n2\n3\n");
}

TEST(SpawnTest, StdioArePipesAndStdinCanBeDevNull) {
  TempDir dir;
  const std::string tool =
      Script(dir, "stdio-tool",
             "for fd in 0 1 2; do printf '%s ' \"$(readlink /proc/$$/fd/$fd)\"; "
             "done");
  auto piped = Spawn(Request(tool));
  ASSERT_TRUE(piped.ok()) << piped.error();
  EXPECT_TRUE(piped->stdin_fd.valid());
  const std::string with_pipe = Collect(*piped).out;
  EXPECT_EQ(with_pipe.rfind("pipe:", 0), 0u) << with_pipe;
  EXPECT_EQ(with_pipe.find("/dev/null"), std::string::npos);

  SpawnRequest r = Request(tool);
  r.pipe_stdin = false;
  auto nulled = Spawn(r);
  ASSERT_TRUE(nulled.ok()) << nulled.error();
  EXPECT_FALSE(nulled->stdin_fd.valid());
  const std::string with_null = Collect(*nulled).out;
  EXPECT_EQ(with_null.rfind("/dev/null pipe:", 0), 0u) << with_null;
}

TEST(SpawnTest, ParentEndsAreNonBlockingAndCloseOnExec) {
  auto child = Spawn(Request("/bin/cat"));
  ASSERT_TRUE(child.ok()) << child.error();
  for (const UniqueFd* fd : {&child->stdin_fd, &child->stdout_fd, &child->stderr_fd}) {
    ASSERT_TRUE(fd->valid());
    EXPECT_TRUE(::fcntl(fd->get(), F_GETFL) & O_NONBLOCK);
    EXPECT_TRUE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC);
  }
  ASSERT_EQ(::write(child->stdin_fd.get(), "echo", 4), 4);
  EXPECT_EQ(Collect(*child).out, "echo");
}

TEST(SpawnTest, SignalsAreResetForTheChild) {
  // The host ignores SIGPIPE (run_many.cc) and may block signals; the tool
  // must see defaults, or `yes | head` in a tool would never end.
  struct sigaction ignore {
  }, old_pipe{}, old_term{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old_pipe);
  ::sigaction(SIGTERM, &ignore, &old_term);
  sigset_t block, old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  ::pthread_sigmask(SIG_BLOCK, &block, &old_mask);
  // A parent may leave glibc's own signals (32, 33) ignored, as some CI
  // runners do; glibc's sigaction() cannot set them, the raw call can.
  struct {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    unsigned long mask;
  } kernel_ignore{SIG_IGN, 0, nullptr, 0}, kernel_default{SIG_DFL, 0, nullptr, 0};
  for (int sig : {32, 33}) ::syscall(SYS_rt_sigaction, sig, &kernel_ignore, nullptr, 8);
  auto child = Spawn(Request("/bin/grep", {"-E", "^(SigIgn|SigBlk)", "/proc/self/status"}));
  for (int sig : {32, 33}) ::syscall(SYS_rt_sigaction, sig, &kernel_default, nullptr, 8);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ASSERT_TRUE(child.ok()) << child.error();
  EXPECT_EQ(Collect(*child).out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST(SpawnTest, PreExecHookRunsInTheChild) {
  TempDir dir;
  const std::string tool = Script(dir, "limit-tool", "ulimit -n");
  SpawnRequest r = Request(tool);
  r.pre_exec = [](void* context) -> int {
    const rlim_t n = *static_cast<rlim_t*>(context);
    rlimit limit{n, n};
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return errno;
    return ::write(STDOUT_FILENO, "hook ", 5) == 5 ? 0 : errno;
  };
  rlim_t files = 123;
  r.pre_exec_context = &files;
  auto child = Spawn(r);
  ASSERT_TRUE(child.ok()) << child.error();
  EXPECT_EQ(Collect(*child).out, "hook 123\n");
  // The hook changed the child, not the host.
  rlimit mine{};
  ::getrlimit(RLIMIT_NOFILE, &mine);
  EXPECT_NE(mine.rlim_cur, 123u);
}

TEST(SpawnTest, PreExecHookSeesTheParentsDescriptorsWhichAreClosedBeforeExec) {
  TempDir dir;
  const std::string tool = Script(dir, "fds-tool", "ls /proc/self/fd | wc -l");
  SpawnRequest r = Request(tool);
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 3);
  r.pre_exec = [](void* context) -> int {
    // fcntl fails with EBADF if the descriptor was closed before the hook.
    return ::fcntl(*static_cast<int*>(context), F_GETFD) < 0 ? errno : 0;
  };
  int hook_fd = fd;
  r.pre_exec_context = &hook_fd;
  auto child = Spawn(r);
  ::close(fd);
  ASSERT_TRUE(child.ok()) << child.error();
  // 0, 1, 2 and the descriptor ls opens on /proc/self/fd: nothing else.
  EXPECT_EQ(Collect(*child).out, "4\n");
}

TEST(SpawnTest, FailingPreExecHookFailsTheSpawnWithItsErrno) {
  SpawnRequest r = Request("/bin/true");
  r.pre_exec = [](void*) { return EPERM; };
  auto child = Spawn(r);
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.error().find("pre-exec"), std::string::npos) << child.error();
  EXPECT_NE(child.error().find(std::strerror(EPERM)), std::string::npos) << child.error();
  EXPECT_TRUE(test::ChildrenOf(::getpid()).empty());  // the failed child was reaped
}

TEST(SpawnTest, MissingExecutableIsAnError) {
  auto child = Spawn(Request("/nonexistent/dir/x-tool"));
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.error(), "exec /nonexistent/dir/x-tool: No such file or directory");
  EXPECT_TRUE(test::ChildrenOf(::getpid()).empty());
}

TEST(SpawnTest, NonExecutableFileIsAnError) {
  TempDir dir;
  const std::string path = dir / "plain-tool";
  ikigai::testing::WriteFile(path, "#!/bin/sh\necho hi\n", 0644);
  auto child = Spawn(Request(path));
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.error(), "exec " + path + ": Permission denied");
}

TEST(SpawnTest, MissingWorkingDirectoryIsAnError) {
  SpawnRequest r = Request("/bin/true");
  r.cwd = "/nonexistent/dir";
  auto child = Spawn(r);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.error(), "chdir /nonexistent/dir: No such file or directory");
}

TEST(SpawnTest, NoDescriptorsLeakAcrossSpawns) {
  const std::size_t before = test::OpenFdCount();
  for (int i = 0; i < 50; ++i) {
    auto ok = Spawn(Request("/bin/true"));
    ASSERT_TRUE(ok.ok()) << ok.error();
    Collect(*ok);
    auto failed = Spawn(Request("/nonexistent"));
    ASSERT_FALSE(failed.ok());
  }
  EXPECT_EQ(test::OpenFdCount(), before);
}

TEST(SpawnTest, EnvironmentWithOverridesAndAdds) {
  ::setenv("IKIGAI_SPAWN_TEST_A", "old", 1);
  ::setenv("IKIGAI_SPAWN_TEST_B", "kept", 1);
  const auto env = EnvironmentWith({{"IKIGAI_SPAWN_TEST_A", "new"}, {"IKIGAI_SPAWN_TEST_C", "x"}});
  ::unsetenv("IKIGAI_SPAWN_TEST_A");
  ::unsetenv("IKIGAI_SPAWN_TEST_B");
  auto count = [&](const std::string& var) { return std::count(env.begin(), env.end(), var); };
  EXPECT_EQ(count("IKIGAI_SPAWN_TEST_A=new"), 1);
  EXPECT_EQ(count("IKIGAI_SPAWN_TEST_A=old"), 0);
  EXPECT_EQ(count("IKIGAI_SPAWN_TEST_B=kept"), 1);
  EXPECT_EQ(count("IKIGAI_SPAWN_TEST_C=x"), 1);
}

}  // namespace
}  // namespace ikigai::spawning
