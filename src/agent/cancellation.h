// Stopping a turn from a signal handler (Ctrl+C).
//
// Request() only sets an atomic flag and writes to an eventfd, both
// async-signal-safe. The provider polls the flag (its HTTP transfer checks
// it between reads); the executor polls the descriptor alongside its tool
// pipes, so running tool groups are stopped at once.
#pragma once

#include <atomic>

#include "base/unique_fd.h"

namespace ikigai::agent {

class Cancellation {
 public:
  Cancellation();
  void Request();  // async-signal-safe
  void Reset();    // before the next turn
  bool requested() const { return requested_.load(); }
  const std::atomic<bool>& flag() const { return requested_; }
  int fd() const { return event_.get(); }  // readable once requested

 private:
  std::atomic<bool> requested_{false};
  UniqueFd event_;
};

}  // namespace ikigai::agent
