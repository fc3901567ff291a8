// MCP's Streamable HTTP transport, client side (protocol 2025-11-25).
//
// Each message is a POST to the server's one URL. A request is answered
// with JSON or with an event stream that carries the server's requests and
// notifications about it and finally its response; a notification or a
// response of ours is answered 202. Besides, a GET opens a stream for what
// the server sends on its own. The server names the session in the
// initialize answer's Mcp-Session-Id header; from then on every request
// carries it, and the negotiated MCP-Protocol-Version. The GET stream opens
// once notifications/initialized was accepted; a 405 (or any other refusal)
// means the server offers none.
//
// Streams break, and servers end them on purpose to poll: a stream that
// ends before the response to its request arrived is resumed with a GET
// carrying Last-Event-ID, after the `retry:` time the server gave (1 s
// otherwise), a few times with growing delays while the attempts fail; the
// GET stream likewise reconnects whenever it ends. A request that cannot be
// answered (no connection, an HTTP error, a stream that cannot be resumed)
// gets a JSON-RPC error response (code -32000) from the transport itself,
// with one line saying why, so the client above never waits in vain. A 404 on a session
// means the server forgot it: on_closed("session expired"), and the client
// starts a new transport and initializes again.
//
// Every exchange runs on a thread of a small pool (HttpWorkerPool); Send
// only queues. Requests go at once, side by side, but what follows a
// notification or a response of ours waits until the server took it (its
// 202), so the server sees them in order: notifications/initialized before
// the first request, and the GET stream open before it too. Close cancels every transfer (within
// tens of milliseconds), deletes the session, and joins the threads.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mcpclient/http_worker_pool.h"
#include "mcpclient/transport.h"
#include "providers/sse_parser.h"

namespace ikigai::mcpclient {

struct HttpTransportOptions {
  std::string url{};                             // http:// or https://
  std::map<std::string, std::string> headers{};  // sent with every request, already expanded
  std::optional<std::string> bearer_token{};     // Authorization: Bearer <token>
  std::chrono::milliseconds connect_timeout{10000};
  // Before resuming a stream when the server gave no `retry:`.
  std::chrono::milliseconds default_retry{1000};
  // Failed attempts in a row before a stream is given up; each waits twice
  // the one before (capped at max_retry_delay).
  int reconnect_attempts = 4;
  std::chrono::milliseconds max_retry_delay{30000};
  std::size_t max_threads = 32;
};

class HttpTransport : public Transport {
 public:
  explicit HttpTransport(HttpTransportOptions options);
  HttpTransport(std::string url, std::map<std::string, std::string> headers,
                std::optional<std::string> bearer_token);
  ~HttpTransport() override;  // Close(); must not run on a transport thread

  // Checks the URL and the headers (a clear error for a bad one); connects
  // nothing yet.
  Result<bool, std::string> Start(TransportEvents events) override;
  // Queues the POST; errors only when closed or never started.
  Result<bool, std::string> Send(const nlohmann::json& message) override;
  // Waits for a callback in progress, so call it without holding a lock the
  // callbacks take. From a callback it stops everything but leaves the
  // joining to the destructor.
  void Close() override;

  // For tests: the session id the server gave ("" before initialize).
  std::string session_id() const;

 private:
  struct Stream;   // one request's stream, or the GET stream, across reconnects
  struct Barrier;  // a message the ones sent after it wait for
  using BarrierPtr = std::shared_ptr<Barrier>;
  enum class GetOutcome {
    kEnded,        // a stream came and ended (or broke) before what we wait for
    kAnswered,     // the request's response came
    kUnreachable,  // no answer at all (connection refused, broken before the head)
    kRefused,      // an HTTP answer that is no event stream (405: none offered)
    kExpired,      // 404 on our session
    kCancelled,
  };

  void Post(providers::HttpClient& client, const nlohmann::json& message, const std::string& body,
            BarrierPtr& barrier);
  bool WaitBarrier(const BarrierPtr& barrier);  // false: closing
  void Release(const BarrierPtr& barrier);
  bool Consume(providers::SseParser& parser, Stream& stream, std::string_view bytes);
  void Follow(providers::HttpClient& client, Stream& stream);
  GetOutcome Get(providers::HttpClient& client, Stream& stream);
  void Deliver(const nlohmann::json& message);
  void FailRequest(const nlohmann::json& id, const std::string& why);
  void Expired();
  void NoteHead(const providers::PostResponse& head);
  void NoteResponse(const nlohmann::json& message);
  // false: closing, or the stream was abandoned
  bool WaitFor(std::chrono::milliseconds delay, const std::atomic<bool>& stop);
  using StopFlag = std::shared_ptr<std::atomic<bool>>;
  StopFlag Track(const std::string& request_key);
  void Untrack(const std::string& request_key, const StopFlag& flag);
  void Abandon(const nlohmann::json& cancelled_notification);
  std::vector<std::string> Headers(const char* accept) const;
  void StopTransfers();

  HttpTransportOptions options_;
  TransportEvents events_;

  mutable std::mutex state_mutex_;
  std::string session_id_;
  std::string protocol_version_;
  std::set<std::string> initialize_ids_;  // dumped ids of initialize requests in flight
  // The stop flag of every transfer, by its request's dumped id ("" for the
  // others): Close stops them all, notifications/cancelled its request's.
  std::multimap<std::string, StopFlag> transfers_;
  bool started_ = false;
  bool closed_ = false;
  bool get_stream_opened_ = false;
  BarrierPtr last_barrier_;  // the last notification or response sent

  std::mutex deliver_mutex_;  // one callback at a time
  bool silenced_ = false;     // on_closed delivered, or closing: no more events

  std::atomic<bool> cancel_{false};
  std::mutex wait_mutex_;
  std::condition_variable wait_wake_;

  std::unique_ptr<HttpWorkerPool> pool_;
};

}  // namespace ikigai::mcpclient
