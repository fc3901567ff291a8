#include "mcpclient/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/thread.h"
#include "base/utf8.h"
#include "protocol/parse_json.h"
#include "spawning/host_guard.h"
#include "spawning/spawn.h"

namespace ikigai::mcpclient {
namespace {

constexpr std::size_t kStderrKept = 2048;
constexpr std::size_t kMaxLine = 64 * 1024 * 1024;
// How long a server that closed its stdout may take to exit before its
// group is killed; and how long Send waits for a server that reads nothing.
constexpr int kExitGraceMs = 1000;
constexpr int kSendTimeoutMs = 10000;

std::string Quote(std::string_view text) {
  std::string shown = utf8::Repair(text.substr(0, 200));
  return "\"" + shown + (text.size() > 200 ? "...\"" : "\"");
}

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

}  // namespace

std::string FindExecutable(const std::string& command, const std::string& path) {
  if (command.find('/') != std::string::npos) return command;
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + command;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = colon + 1;
  }
  return {};
}

Result<bool, std::string> StdioTransport::Start(TransportEvents events) {
  std::lock_guard lifecycle(lifecycle_mutex_);
  if (closing_) return Err(std::string("the connection was closed"));
  events_ = std::move(events);
  std::string path_value;
  for (const std::string& entry : command_.env) {
    if (entry.starts_with("PATH=")) path_value = entry.substr(5);
  }
  const std::string executable = FindExecutable(command_.command, path_value);
  if (executable.empty()) {
    return Err("command \"" + command_.command + "\" not found in PATH (" + path_value + ")");
  }
  spawning::SpawnRequest request;
  request.path = executable;
  request.argv.push_back(command_.command);
  request.argv.insert(request.argv.end(), command_.args.begin(), command_.args.end());
  request.env = command_.env;
  request.cwd = command_.cwd;
  request.pre_exec = command_.pre_exec;
  request.pre_exec_context = command_.pre_exec_context;
  auto child = spawning::Spawn(request);
  if (!child) return Err(std::move(child.error()));
  pid_ = child->pid;
  // Should the host die without stopping it, the guard ends it.
  spawning::TellHostGuard(pid_);
  stdin_fd_ = std::move(child->stdin_fd);
  stdout_fd_ = std::move(child->stdout_fd);
  stderr_fd_ = std::move(child->stderr_fd);
  pidfd_.Reset(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
  int wake[2];
  if (!pidfd_.valid() || ::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const std::string why = std::strerror(errno);
    ::kill(-pid_, SIGKILL);
    spawning::WaitChild(pid_);
    pid_ = -1;
    return Err("cannot watch the server process: " + why);
  }
  wake_read_.Reset(wake[0]);
  wake_write_.Reset(wake[1]);
  reader_ = base::ThreadWithoutSignals([this] { ReadLoop(); });
  return true;
}

Result<bool, std::string> StdioTransport::Send(const nlohmann::json& message) {
  std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  std::lock_guard lock(send_mutex_);
  if (!stdin_fd_.valid() || closing_) return Err(std::string("the server is not running"));
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t n = ::write(stdin_fd_.get(), rest.data(), rest.size());
    if (n > 0) {
      rest.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd out{stdin_fd_.get(), POLLOUT, 0};
      const int ready = ::poll(&out, 1, kSendTimeoutMs);
      if (ready == 0) return Err(std::string("the server reads nothing from its stdin"));
      if (ready < 0 && errno != EINTR) return Err(std::string("poll: ") + std::strerror(errno));
      continue;
    }
    return Err("the server's stdin is closed (" + std::string(std::strerror(errno)) + ")");
  }
  return true;
}

void StdioTransport::KeepStderr(std::string_view chunk) {
  std::lock_guard lock(stderr_mutex_);
  stderr_tail_.append(chunk);
  if (stderr_tail_.size() > kStderrKept) {
    std::size_t cut = stderr_tail_.size() - kStderrKept;
    const std::size_t newline = stderr_tail_.find('\n', cut);
    if (newline != std::string::npos && newline + 1 < stderr_tail_.size()) cut = newline + 1;
    stderr_tail_.erase(0, cut);
  }
}

std::string StdioTransport::StderrTail() const {
  std::lock_guard lock(stderr_mutex_);
  std::string tail = utf8::Repair(stderr_tail_);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  // The last few lines are what explain an exit.
  std::size_t start = 0;
  int newlines = 0;
  for (std::size_t i = tail.size(); i-- > 0;) {
    if (tail[i] == '\n' && ++newlines == 5) {
      start = i + 1;
      break;
    }
  }
  return tail.substr(start);
}

void StdioTransport::HandleStdout(std::string_view chunk) {
  for (char c : chunk) {
    if (!broken_.empty()) return;
    if (c != '\n') {
      line_.push_back(c);
      if (line_.size() > kMaxLine) broken_ = "printed a line longer than 64 MB on stdout";
      continue;
    }
    std::string line = std::move(line_);
    line_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto message = protocol::ParseJson(line);
    if (!message || !message->is_object()) {
      broken_ = "printed something that is not a JSON-RPC message on stdout: " + Quote(line) +
                " (an MCP server over stdio must write only protocol messages there; logs go "
                "to stderr)";
      return;
    }
    if (!closing_ && events_.on_message) events_.on_message(std::move(*message));
  }
}

void StdioTransport::ReadLoop() {
  bool stdout_open = true, stderr_open = stderr_fd_.valid(), exited = false;
  auto grace_end = std::chrono::steady_clock::time_point::max();
  char buffer[65536];
  while (!exited) {
    pollfd fds[4] = {{stdout_open ? stdout_fd_.get() : -1, POLLIN, 0},
                     {stderr_open ? stderr_fd_.get() : -1, POLLIN, 0},
                     {pidfd_.get(), POLLIN, 0},
                     {wake_read_.get(), POLLIN, 0}};
    int timeout = -1;
    if (grace_end != std::chrono::steady_clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          grace_end - std::chrono::steady_clock::now());
      timeout = static_cast<int>(std::max<long>(0, left.count()));
    }
    const int ready = ::poll(fds, 4, timeout);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {  // past the grace: closed stdout or was closed, and still running
      ::kill(-pid_, SIGKILL);
      grace_end = std::chrono::steady_clock::time_point::max();
      continue;
    }
    if (fds[3].revents != 0) {
      // Close: its stdin is closed already; SIGTERM, then SIGKILL after the
      // grace (MCP's stdio shutdown).
      ::kill(-pid_, SIGTERM);
      grace_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(kExitGraceMs);
      char drain[16];
      while (::read(wake_read_.get(), drain, sizeof drain) > 0) {
      }
    }
    if (fds[0].revents != 0) {
      const ssize_t n = ::read(stdout_fd_.get(), buffer, sizeof buffer);
      if (n > 0) {
        HandleStdout(std::string_view(buffer, static_cast<std::size_t>(n)));
        if (!broken_.empty()) {
          ::kill(-pid_, SIGKILL);
          stdout_open = false;
        }
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        stdout_open = false;
        grace_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(kExitGraceMs);
      }
    }
    if (fds[1].revents != 0) {
      const ssize_t n = ::read(stderr_fd_.get(), buffer, sizeof buffer);
      if (n > 0) {
        KeepStderr(std::string_view(buffer, static_cast<std::size_t>(n)));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        stderr_open = false;
      }
    }
    if (fds[2].revents != 0) exited = true;
  }
  // What it wrote just before exiting is still in the pipes.
  for (;;) {
    const ssize_t n = stderr_open ? ::read(stderr_fd_.get(), buffer, sizeof buffer) : 0;
    if (n <= 0) break;
    KeepStderr(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
  for (;;) {
    const ssize_t n = stdout_open ? ::read(stdout_fd_.get(), buffer, sizeof buffer) : 0;
    if (n <= 0 || !broken_.empty()) break;
    HandleStdout(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
  ::kill(-pid_, SIGKILL);  // whatever it left behind in its group
  const int status = spawning::WaitChild(pid_);
  if (closing_ || !events_.on_closed) return;
  std::string why = !broken_.empty() ? "the server " + broken_ : "the server " + Describe(status);
  if (std::string tail = StderrTail(); !tail.empty()) {
    for (char& c : tail) {
      if (c == '\n') c = '|';
    }
    why += "; its stderr: " + tail;
  }
  events_.on_closed(std::move(why));
}

void StdioTransport::Close() {
  std::call_once(close_once_, [this] {
    std::lock_guard lifecycle(lifecycle_mutex_);
    closing_ = true;
    if (reader_.joinable()) {
      {
        std::lock_guard lock(send_mutex_);
        stdin_fd_.Reset();
      }
      const char byte = 1;
      (void)!::write(wake_write_.get(), &byte, 1);
      reader_.join();
    }
  });
}

}  // namespace ikigai::mcpclient
