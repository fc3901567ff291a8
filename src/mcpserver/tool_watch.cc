#include "mcpserver/tool_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace ikigai::mcpserver {
namespace {

// Events after which the directory may hold other tools.
constexpr uint32_t kEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
                             IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
// Quiet time before discovering again: a copy of several tools is one change.
constexpr int kSettleMs = 150;

void Drain(int fd) {
  char buffer[4096];
  while (::read(fd, buffer, sizeof buffer) > 0) {
  }
}

}  // namespace

ToolWatch::ToolWatch(const std::vector<std::string>& directories, std::function<void()> on_change)
    : on_change_(std::move(on_change)) {
  inotify_.Reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  int fds[2];
  if (!inotify_.valid() || ::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
  stop_read_.Reset(fds[0]);
  stop_write_.Reset(fds[1]);
  for (const std::string& directory : directories) {
    if (directory.empty()) continue;
    if (::inotify_add_watch(inotify_.get(), directory.c_str(), kEvents | IN_ONLYDIR) >= 0) {
      ++watched_;
    }
  }
  if (watched_ > 0) thread_ = std::thread([this] { Loop(); });
}

ToolWatch::~ToolWatch() {
  if (!thread_.joinable()) return;
  const char byte = 's';
  (void)!::write(stop_write_.get(), &byte, 1);
  thread_.join();
}

void ToolWatch::Loop() {
  for (;;) {
    pollfd fds[2] = {{inotify_.get(), POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) return;
    Drain(inotify_.get());
    // Wait until quiet: every new event restarts the wait.
    for (;;) {
      pollfd again[2] = {{inotify_.get(), POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
      const int ready = ::poll(again, 2, kSettleMs);
      if (ready > 0 && again[1].revents != 0) return;
      if (ready == 0) break;
      Drain(inotify_.get());
    }
    on_change_();
  }
}

}  // namespace ikigai::mcpserver
