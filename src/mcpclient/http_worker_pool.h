// Threads for the HTTP transport's exchanges, each with its own HTTP client.
//
// Problem: an MCP server over HTTP answers each request on its own
// connection, some as a stream that lasts as long as the tool runs, and the
// GET stream lasts the whole session; several must be in flight at once and
// none may hold up the caller. Approach: a job runs on an idle thread, or on
// a new one while there are fewer than the cap; beyond it jobs wait in
// order. Each thread keeps its libcurl handle, so a thread's next request
// reuses its connection (keep-alive). Threads live until Stop, which joins
// them; jobs still waiting then are dropped.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "providers/http_client.h"

namespace ikigai::mcpclient {

class HttpWorkerPool {
 public:
  using Job = std::function<void(providers::HttpClient& client)>;

  explicit HttpWorkerPool(std::size_t max_threads);
  ~HttpWorkerPool();  // Stop()
  HttpWorkerPool(const HttpWorkerPool&) = delete;
  HttpWorkerPool& operator=(const HttpWorkerPool&) = delete;

  // Queues a job; false once stopping (the job is not run).
  bool Run(Job job);

  // Whether the calling thread is one of the pool's.
  bool OnWorkerThread() const;

  // No new job is taken; waits for the running ones (the caller makes them
  // end, by the cancel flag it gave them) and joins the threads. Must not be
  // called from a job.
  void Stop();

 private:
  void Work();

  const std::size_t max_threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace ikigai::mcpclient
