// A tool directory that does not exist yet (a new user's ~/.ikigai/tools)
// cannot be watched; its nearest existing ancestor is watched instead for
// what is made in it, and after each event every directory is tried again,
// so the tool directory is watched from the moment it appears. Events from
// ancestors only retry; a change is a tool directory's event or a tool
// directory newly watched (it may already hold tools).
#include "mcpserver/tool_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "base/thread.h"

namespace ikigai::mcpserver {
namespace {

// Events after which the directory may hold other tools.
constexpr uint32_t kEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
                             IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
// Events after which a missing directory below may exist.
constexpr uint32_t kAncestorEvents = IN_CREATE | IN_MOVED_TO;
// Quiet time before discovering again: a copy of several tools is one change.
constexpr int kSettleMs = 150;

}  // namespace

ToolWatch::ToolWatch(const std::vector<std::string>& directories, std::function<void()> on_change)
    : directories_(directories), on_change_(std::move(on_change)) {
  inotify_.Reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  int fds[2];
  if (!inotify_.valid() || ::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
  stop_read_.Reset(fds[0]);
  stop_write_.Reset(fds[1]);
  const bool any = WatchAll() || !ancestor_watches_.empty();
  if (any) thread_ = base::ThreadWithoutSignals([this] { Loop(); });
}

ToolWatch::~ToolWatch() {
  if (!thread_.joinable()) return;
  const char byte = 's';
  (void)!::write(stop_write_.get(), &byte, 1);
  thread_.join();
}

bool ToolWatch::WatchAll() {
  bool added = false;
  for (const std::string& directory : directories_) {
    if (directory.empty()) continue;
    const int wd = ::inotify_add_watch(inotify_.get(), directory.c_str(), kEvents | IN_ONLYDIR);
    if (wd >= 0) {
      added |= tool_watches_.insert(wd).second;
      continue;
    }
    // Missing: watch the nearest ancestor that exists, for it to appear.
    for (std::filesystem::path up = std::filesystem::path(directory).parent_path(); !up.empty();
         up = up.parent_path()) {
      const int ancestor = ::inotify_add_watch(inotify_.get(), up.c_str(),
                                               kAncestorEvents | IN_ONLYDIR | IN_MASK_ADD);
      if (ancestor >= 0) {
        ancestor_watches_.insert(ancestor);
        break;
      }
      if (up == up.root_path()) break;
    }
  }
  watched_ = static_cast<int>(tool_watches_.size());
  return added;
}

bool ToolWatch::Drain() {
  bool tool_event = false;
  alignas(inotify_event) char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(inotify_.get(), buffer, sizeof buffer);
    if (n <= 0) return tool_event;
    for (ssize_t at = 0; at < n;) {
      inotify_event event;
      std::memcpy(&event, buffer + at, sizeof event);
      if (tool_watches_.contains(event.wd)) tool_event = true;
      if (event.mask & IN_IGNORED) tool_watches_.erase(event.wd);  // removed: retried
      at += static_cast<ssize_t>(sizeof(inotify_event) + event.len);
    }
  }
}

void ToolWatch::Loop() {
  for (;;) {
    pollfd fds[2] = {{inotify_.get(), POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) return;
    bool changed = Drain();
    // Wait until quiet: every new event restarts the wait.
    for (;;) {
      pollfd again[2] = {{inotify_.get(), POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
      const int ready = ::poll(again, 2, kSettleMs);
      if (ready > 0 && again[1].revents != 0) return;
      if (ready == 0) break;
      changed |= Drain();
    }
    changed |= WatchAll();
    if (changed) on_change_();
  }
}

}  // namespace ikigai::mcpserver
