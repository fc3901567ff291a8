// A real HTTP server on 127.0.0.1 for the web tools' tests (cpp-httplib),
// on a port the kernel picks. Register handlers on `server` before Start().
// The listening socket exists once Start() returns, so a client may connect
// at once: connections wait in the backlog until the accept loop runs.
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ikigai::testing {

class LocalHttpServer {
 public:
  LocalHttpServer() = default;
  ~LocalHttpServer() { Stop(); }
  LocalHttpServer(const LocalHttpServer&) = delete;
  LocalHttpServer& operator=(const LocalHttpServer&) = delete;

  httplib::Server server;

  // Binds and starts serving; returns false if no port could be bound.
  bool Start() {
    port_ = server.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) return false;
    thread_ = std::thread([this] { server.listen_after_bind(); });
    return true;
  }

  void Stop() {
    Release();
    if (thread_.joinable()) {
      // stop() does nothing before the accept loop runs: wait for it.
      while (!server.is_running()) std::this_thread::yield();
      server.stop();
      thread_.join();
    }
  }

  int port() const { return port_; }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  // For a handler that must not answer until the test is done with it (a
  // server slower than the tool's time limit): blocks until Release().
  void Hold() {
    std::unique_lock lock(mutex_);
    released_cv_.wait(lock, [this] { return released_; });
  }
  void Release() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    released_cv_.notify_all();
  }

 private:
  int port_ = -1;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
};

}  // namespace ikigai::testing
