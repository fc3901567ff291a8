// One HTTP POST whose answer is read as it arrives (libcurl).
//
// Problem: a model's answer streams for minutes; the user may cancel at any
// moment; a server may stop sending without closing the connection. A plain
// curl_easy_perform only looks at the world about once a second when nothing
// arrives, and libcurl's low-speed limit counts whole seconds. Approach: the
// easy handle runs in a multi handle polled every 20 ms; between polls the
// cancel flag and the time since the last byte are checked, so a cancel
// takes effect within a few tens of milliseconds and a stall is detected at
// the millisecond bound asked for. There is a connect timeout and no overall
// timeout (an answer may legitimately take long while bytes keep coming).
//
// A 2xx answer of type text/event-stream goes to the caller's callback as
// it arrives; any other answer (an error, or something unexpected) is kept,
// up to 64 KB, for the caller to read. The connection is kept for the next
// request (keep-alive), so one client serves one request at a time.
//
// The MCP client's Streamable HTTP transport uses it too: GET and DELETE
// besides POST, the response headers (its session id) known before the body,
// and JSON answers larger than 64 KB kept whole.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace ikigai::providers {

struct PostResponse;

struct PostRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent with POST only
  std::string method = "POST";       // or "GET", "DELETE"
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds stall_timeout{60000};  // no byte for this long: kStalled
  std::size_t kept_body_limit = 64 * 1024;         // of an answer that is not streamed
  // Called once the status and headers are known (at the end of the head),
  // before any of the body.
  std::function<void(const PostResponse&)> on_head;
};

struct PostResponse {
  long status = 0;
  std::string content_type;
  std::optional<std::chrono::milliseconds> retry_after;  // Retry-After or retry-after-ms
  std::map<std::string, std::string> headers;            // of the final answer; names in lower case
  bool streamed = false;  // 2xx event stream: the body went to the callback
  std::string body;       // otherwise the body, at most kept_body_limit bytes
};

enum class TransferFailure {
  kConnect,    // no connection (refused, DNS, TLS, connect timeout)
  kUnusable,   // no connection can work as asked (a malformed URL, an
               // unsupported scheme, a certificate that fails verification)
  kLost,       // the connection broke or closed during the answer
  kStalled,    // nothing arrived for stall_timeout
  kCancelled,  // the cancel flag became true
  kStopped,    // the callback returned false
};

struct TransferError {
  TransferFailure kind;
  std::string detail;  // libcurl's words, for kConnect and kLost
  long status = 0;     // the HTTP status, if one arrived
};

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // `on_stream` receives the body of a 2xx text/event-stream answer in the
  // pieces the network delivers; returning false stops the transfer.
  Result<PostResponse, TransferError> Post(const PostRequest& request,
                                           const std::function<bool(std::string_view)>& on_stream,
                                           const std::atomic<bool>& cancel);

 private:
  void* easy_;   // CURL*
  void* multi_;  // CURLM*
};

// Parses a Retry-After value: delta-seconds only (an HTTP date gives
// nothing). Exposed for tests.
std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view value);

}  // namespace ikigai::providers
