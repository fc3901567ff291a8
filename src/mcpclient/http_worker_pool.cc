#include "mcpclient/http_worker_pool.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "base/thread.h"

namespace ikigai::mcpclient {

HttpWorkerPool::HttpWorkerPool(std::size_t max_threads) : max_threads_(max_threads) {}

HttpWorkerPool::~HttpWorkerPool() { Stop(); }

bool HttpWorkerPool::Run(Job job) {
  std::lock_guard lock(mutex_);
  if (stopping_) return false;
  jobs_.push_back(std::move(job));
  if (idle_ < jobs_.size() && threads_.size() < max_threads_) {
    threads_.push_back(base::ThreadWithoutSignals([this] { Work(); }));
  } else {
    wake_.notify_one();
  }
  return true;
}

bool HttpWorkerPool::OnWorkerThread() const {
  std::lock_guard lock(mutex_);
  const auto me = std::this_thread::get_id();
  return std::any_of(threads_.begin(), threads_.end(),
                     [&](const std::thread& t) { return t.get_id() == me; });
}

void HttpWorkerPool::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    const auto me = std::this_thread::get_id();
    for (const std::thread& t : threads_) {
      if (t.get_id() == me) {
        std::fputs("ikigai: bug: HttpWorkerPool::Stop called from one of its jobs\n", stderr);
        std::abort();
      }
    }
    stopping_ = true;
    jobs_.clear();
    threads.swap(threads_);
  }
  wake_.notify_all();
  for (std::thread& t : threads) t.join();
}

void HttpWorkerPool::Work() {
  providers::HttpClient client;
  std::unique_lock lock(mutex_);
  while (true) {
    ++idle_;
    wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (stopping_) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job(client);
    lock.lock();
  }
}

}  // namespace ikigai::mcpclient
