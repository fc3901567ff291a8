// Watching the tool directories (inotify): a tool added, removed, replaced
// or made executable calls `on_change` once the directories have been quiet
// for a moment (an install writes many files), on the watch's own thread.
// A directory that does not exist is not watched.
#pragma once

#include <functional>
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

  // How many directories are watched.
  int watched() const { return watched_; }

 private:
  void Loop();

  UniqueFd inotify_;
  UniqueFd stop_read_, stop_write_;
  int watched_ = 0;
  std::function<void()> on_change_;
  std::thread thread_;
};

}  // namespace ikigai::mcpserver
