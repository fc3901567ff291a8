// Discovery in the background (seeds/001 Phase 6): the prompt appears at
// once, and whatever needs the tools waits for the scan only if it has not
// finished yet.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "base/unique_fd.h"
#include "discovery/discovery.h"
#include "registry/registry.h"

namespace ikigai::repl {

class DiscoveryTask {
 public:
  // Runs on the task's thread after the scan: what it returns is the result
  // (the REPL adds the MCP servers' tools, waiting for those still starting).
  using Extend = std::function<std::shared_ptr<const registry::Registry>(
      std::shared_ptr<const registry::Registry>)>;
  DiscoveryTask(discovery::Directories directories, discovery::DiscoveryOptions options,
                Extend extend = nullptr);
  ~DiscoveryTask();  // waits for the scan (at most the schema timeout)
  DiscoveryTask(const DiscoveryTask&) = delete;
  DiscoveryTask& operator=(const DiscoveryTask&) = delete;

  // Starts the scan on its own thread (with the REPL's signals blocked, so
  // that they reach the main thread).
  void Start();
  bool done() const { return done_.load(); }
  // Readable once the scan is done (and stays so).
  int fd() const { return event_.get(); }
  // Waits for the scan; null if `cancel_fd` became readable first.
  std::shared_ptr<const registry::Registry> Wait(int cancel_fd = -1);

 private:
  discovery::Directories directories_;
  discovery::DiscoveryOptions options_;
  Extend extend_;
  UniqueFd event_;
  std::atomic<bool> done_{false};
  std::shared_ptr<const registry::Registry> result_;  // written before done_
  std::thread thread_;
};

}  // namespace ikigai::repl
