#include "providers/testing/loopback_server.h"

#include <algorithm>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ikigai::providers::testing {
namespace {

[[noreturn]] void Fail(const char* what) {
  std::perror(what);
  std::abort();
}

// Waits until `fd` is readable; false when the server is stopping.
bool WaitReadable(int fd, int stop_fd) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  while (poll(fds, 2, -1) < 0) {
  }
  return (fds[1].revents & POLLIN) == 0;
}

}  // namespace

std::string HttpAnswer(int status, const std::string& content_type, const std::string& body,
                       const std::vector<std::string>& extra_headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " Scripted\r\n";
  out += "Content-Type: " + content_type + "\r\n";
  for (const std::string& h : extra_headers) out += h + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  return out + body;
}

std::string EventStreamHead() {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
}

LoopbackServer::LoopbackServer(ScriptedReply reply)
    : LoopbackServer(std::vector<ScriptedReply>{std::move(reply)}) {}

LoopbackServer::LoopbackServer(std::vector<ScriptedReply> replies) : replies_(std::move(replies)) {
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0) Fail("pipe2");
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) Fail("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Fail("bind");
  if (listen(listen_fd_, 16) != 0) Fail("listen");
  socklen_t len = sizeof addr;
  if (getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) Fail("getsockname");
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

LoopbackServer::~LoopbackServer() {
  const char byte = 1;
  if (write(stop_pipe_[1], &byte, 1) != 1) Fail("write");
  thread_.join();
  close(listen_fd_);
  close(stop_pipe_[0]);
  close(stop_pipe_[1]);
}

std::string LoopbackServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string LoopbackServer::last_request() const {
  std::lock_guard lock(mutex_);
  return last_request_;
}

void LoopbackServer::Serve() {
  while (WaitReadable(listen_fd_, stop_pipe_[0])) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::string request;
    if (ReadRequest(fd, request)) {
      {
        std::lock_guard lock(mutex_);
        last_request_ = request;
      }
      const ScriptedReply& reply =
          replies_[std::min<std::size_t>(requests_++, replies_.size() - 1)];
      const std::string& out = reply.bytes;
      for (std::size_t sent = 0; sent < out.size();) {
        const ssize_t n = send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<std::size_t>(n);
      }
      if (reply.hang) HangUntilClosed(fd);
    }
    close(fd);
  }
}

bool LoopbackServer::ReadRequest(int fd, std::string& request) {
  char buf[4096];
  std::size_t head_end = std::string::npos;
  std::size_t want = 0;
  while (true) {
    if (head_end == std::string::npos) {
      head_end = request.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        std::size_t length = 0;
        std::string head = request.substr(0, head_end);
        for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (auto at = head.find("content-length:"); at != std::string::npos) {
          length = std::strtoul(head.c_str() + at + 15, nullptr, 10);
        }
        want = head_end + 4 + length;
      }
    }
    if (head_end != std::string::npos && request.size() >= want) return true;
    if (!WaitReadable(fd, stop_pipe_[0])) return false;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    request.append(buf, static_cast<std::size_t>(n));
  }
}

void LoopbackServer::HangUntilClosed(int fd) {
  char buf[256];
  while (WaitReadable(fd, stop_pipe_[0])) {
    if (recv(fd, buf, sizeof buf, 0) <= 0) return;  // the client went away
  }
}

}  // namespace ikigai::providers::testing
