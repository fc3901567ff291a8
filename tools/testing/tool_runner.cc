#include "testing/tool_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ikigai::testing {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

std::string ToolPath(const std::string& name) {
  return std::string(IKIGAI_TOOL_DIR) + "/" + name + "-tool";
}

ToolRun RunExecutable(const std::string& path, const std::string& input,
                      const RunOptions& options) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    Fail("pipe");
  }
  std::vector<std::string> args{path};
  args.insert(args.end(), options.argv_extra.begin(), options.argv_extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) Fail("fork");
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (const auto& [k, v] : options.env) ::setenv(k.c_str(), v.c_str(), 1);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
    if (options.as_user) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(*options.as_user) != 0 ||
          ::setuid(*options.as_user) != 0) {
        ::_exit(125);
      }
    }
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(path.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  ::fcntl(in[1], F_SETFL, O_NONBLOCK);

  ToolRun run;
  std::size_t written = 0;
  int in_fd = in[1];
  if (input.empty()) {
    ::close(in_fd);
    in_fd = -1;
  }
  int open_outputs = 2;
  bool killed = false;
  while (open_outputs > 0 || in_fd >= 0) {
    pollfd fds[3];
    int n = 0;
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    if (out[0] >= 0) fds[n++] = {out[0], POLLIN, 0};
    if (err[0] >= 0) fds[n++] = {err[0], POLLIN, 0};
    const auto left = options.timeout - (std::chrono::steady_clock::now() - start);
    const int ms =
        static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(left).count());
    if (ms <= 0) {
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    if (::poll(fds, n, ms) < 0 && errno != EINTR) Fail("poll");
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd) {
        const ssize_t w = ::write(in_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN) written = input.size();  // EPIPE: the tool stopped reading
        if (written == input.size()) {
          ::close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      char buf[65536];
      const ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r > 0) {
        (fds[i].fd == out[0] ? run.out : run.err).append(buf, static_cast<std::size_t>(r));
      } else if (r == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        (fds[i].fd == out[0] ? out[0] : err[0]) = -1;
        --open_outputs;
      }
    }
  }
  for (int fd : {in_fd, out[0], err[0]}) {
    if (fd >= 0) ::close(fd);
  }
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  run.max_rss_kb = usage.ru_maxrss;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.term_signal = WTERMSIG(status);
  if (killed) run.err += "\n[test harness: killed after timeout]";
  run.json = Json::parse(run.out, nullptr, false);
  return run;
}

ToolRun RunToolRaw(const std::string& name, const std::string& input, const RunOptions& options) {
  return RunExecutable(ToolPath(name), input, options);
}

ToolRun RunTool(const std::string& name, const Json& args, const RunOptions& options) {
  return RunToolRaw(name, args.dump(), options);
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ikigai-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) Fail("mkdtemp");
  ::chmod(tmpl.c_str(), 0755);
  path_ = tmpl;
}

TempDir::~TempDir() {
  const std::string cmd = "rm -rf '" + path_ + "'";
  if (std::system(cmd.c_str()) != 0) {
    // Leave it; a test directory in /tmp is not worth failing a test over.
  }
}

void WriteFile(const std::string& path, const std::string& content, int mode) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) Fail("open " + path);
  f << content;
  f.close();
  ::chmod(path.c_str(), static_cast<mode_t>(mode));
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) Fail("open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* d = ::opendir(path.c_str());
  if (d == nullptr) Fail("opendir " + path);
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  return names;
}

}  // namespace ikigai::testing
