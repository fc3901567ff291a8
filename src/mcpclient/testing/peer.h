// A peer process for tests (an MCP server from npm, a scripted server in
// python3) on loopback, killed with the test; and a free loopback port.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

namespace ikigai::testing {

// A peer process (python3 or node) on loopback, killed with the test.
class Peer {
 public:
  // Starts argv with `env` added; waits for `marker` in its output, after
  // which the text up to the line's end is kept as `found`.
  bool Start(std::vector<std::string> argv, std::vector<std::string> env,
             const std::string& marker) {
    int out[2];
    if (pipe(out) != 0) return false;
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      for (auto& e : env) putenv(e.data());
      dup2(out[1], 1);
      dup2(out[1], 2);
      close(out[0]);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(out[1]);
    fd_ = out[0];
    std::string seen;
    char buffer[512];
    while (true) {
      const ssize_t n = read(fd_, buffer, sizeof buffer);
      if (n <= 0) {
        output_ = seen;
        return false;
      }
      seen.append(buffer, static_cast<std::size_t>(n));
      const auto at = seen.find(marker);
      if (at != std::string::npos && seen.find('\n', at) != std::string::npos) {
        found_ = seen.substr(at + marker.size(), seen.find('\n', at) - at - marker.size());
        // Keep draining its output so that it never blocks on a full pipe.
        drain_ = std::thread([fd = fd_] {
          char sink[4096];
          while (read(fd, sink, sizeof sink) > 0) {
          }
        });
        return true;
      }
    }
  }
  ~Peer() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (drain_.joinable()) drain_.join();
    if (fd_ >= 0) close(fd_);
  }
  const std::string& found() const { return found_; }
  const std::string& output() const { return output_; }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string found_;
  std::string output_;
  std::thread drain_;
};

// A port nothing listens on now, for a server that takes its port as a
// setting (server-everything reads PORT and reports 0 when given 0).
inline std::string FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return "0";
  }
  close(fd);
  return std::to_string(ntohs(address.sin_port));
}

}  // namespace ikigai::testing
