#include "mcpserver/stdio_server.h"

#include <errno.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>

namespace ikigai::mcpserver {
namespace {

// Whole lines, one writer at a time: answers come from the calls' threads.
class LineWriter {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}
  void Write(const nlohmann::json& message) {
    std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    std::lock_guard lock(mutex_);
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the client is gone; end of input follows
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_;
  std::mutex mutex_;
};

bool IsBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

void ServeStdio(ToolHost& tools, const ServerInfo& info, Sessions& sessions, int in_fd,
                int out_fd) {
  auto writer = std::make_shared<LineWriter>(out_fd);
  const Dispatcher::Send send = [writer](const nlohmann::json& message) { writer->Write(message); };
  Dispatcher dispatcher(tools, info, send);
  sessions.Add(&dispatcher);
  std::string pending;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(in_fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1) {
      const std::string_view line(pending.data() + start, end - start);
      if (!IsBlankLine(line)) dispatcher.Handle(line, send);
    }
    pending.erase(0, start);
  }
  // A last message without its newline still counts.
  if (!IsBlankLine(pending)) dispatcher.Handle(pending, send);
  sessions.Remove(&dispatcher);
  dispatcher.CancelAll();
}

}  // namespace ikigai::mcpserver
