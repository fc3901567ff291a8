// A tiny HTTP server on 127.0.0.1 for the faults aimock cannot script: an
// exact status and headers, a malformed event in a stream, a server that
// accepts and never answers, a stream that ends without its terminal event.
//
// One thread serves the connections one after another: each request is read
// whole (headers and Content-Length body) and gets its scripted reply,
// written as given; then the connection is closed, or left open and silent
// until the client goes away or the server is destroyed ("hang").
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ikigai::providers::testing {

struct ScriptedReply {
  std::string bytes;  // written as is once the request is read (may be empty)
  bool hang = false;  // then keep the connection open, sending nothing
};

// "HTTP/1.1 <status> X\r\n" + headers + Content-Length + "Connection: close" + body.
std::string HttpAnswer(int status, const std::string& content_type, const std::string& body,
                       const std::vector<std::string>& extra_headers = {});
// The head of an event stream without a length: its end is the connection's close.
std::string EventStreamHead();

class LoopbackServer {
 public:
  explicit LoopbackServer(ScriptedReply reply);
  // The n-th request gets the n-th reply; the last one repeats.
  explicit LoopbackServer(std::vector<ScriptedReply> replies);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  std::string url() const;  // http://127.0.0.1:PORT
  int requests() const { return requests_.load(); }
  std::string last_request() const;  // head and body as received

 private:
  void Serve();
  bool ReadRequest(int fd, std::string& request);
  void HangUntilClosed(int fd);

  std::vector<ScriptedReply> replies_;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  int port_ = 0;
  std::atomic<int> requests_{0};
  mutable std::mutex mutex_;
  std::string last_request_;
  std::thread thread_;
};

}  // namespace ikigai::providers::testing
