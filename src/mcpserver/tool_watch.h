// Watching the tool directories (inotify): a tool added, removed, replaced
// or made executable calls `on_change` once the directories have been quiet
// for a moment (an install writes many files), on the watch's own thread.
// A directory that does not exist yet is watched from when it appears.
#pragma once

#include <atomic>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"

namespace ikigai::mcpserver {

class ToolWatch {
 public:
  ToolWatch(const std::vector<std::string>& directories, std::function<void()> on_change);
  ~ToolWatch();  // stops the thread
  ToolWatch(const ToolWatch&) = delete;
  ToolWatch& operator=(const ToolWatch&) = delete;

  // How many of the directories are watched (exist) now.
  int watched() const { return watched_; }

 private:
  // Watches the directories that exist, and an ancestor of each that does
  // not; whether a directory is watched that was not before.
  bool WatchAll();
  // Reads the events waiting; whether one was a tool directory's.
  bool Drain();
  void Loop();

  const std::vector<std::string> directories_;
  UniqueFd inotify_;
  UniqueFd stop_read_, stop_write_;
  std::set<int> tool_watches_, ancestor_watches_;  // watch descriptors
  std::atomic<int> watched_ = 0;
  std::function<void()> on_change_;
  std::thread thread_;
};

}  // namespace ikigai::mcpserver
