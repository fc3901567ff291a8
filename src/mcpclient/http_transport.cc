#include "mcpclient/http_transport.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>
#include <vector>

#include "base/format.h"
#include "providers/sse_parser.h"

namespace ikigai::mcpclient {
namespace {

// Whether the server no longer knows the session it gave: 404, as the
// protocol says, or the 400 that servers built on the SDK's examples send
// ("No valid session ID provided").
bool SessionGone(const providers::PostResponse& response) {
  if (response.status == 404) return true;
  if (response.status != 400) return false;
  return AsciiLower(std::string_view(response.body).substr(0, 4096)).find("session") !=
         std::string::npos;
}

using nlohmann::json;
using providers::HttpClient;
using providers::PostRequest;
using providers::PostResponse;
using providers::TransferFailure;
using std::chrono::milliseconds;

// A request's answer may stream as long as its tool runs, silently; the
// client above has its own timeouts, so this only catches a dead peer.
constexpr milliseconds kStreamStall{std::chrono::hours(1)};
constexpr std::size_t kJsonAnswerLimit = 64 * 1024 * 1024;
constexpr milliseconds kDeleteTimeout{2000};
constexpr milliseconds kMinRetry{10};
// How long a message waits for the one before it to be taken: a 202 comes at
// once, but a GET stream's head might not (a server that sends it with its
// first event); order is then given up rather than the session stalled.
constexpr milliseconds kBarrierWait{3000};
// The code of the error responses the transport makes up for a request the
// server could not answer (JSON-RPC's range for implementation errors).
constexpr int kTransportErrorCode = -32000;

// The transport whose callback runs on this thread (Close from a callback
// must not wait for the callback to end).
thread_local const void* in_callback_of = nullptr;

bool IsRequest(const json& m) {
  return m.is_object() && m.contains("method") && m.contains("id") && !m["id"].is_null();
}

bool IsResponseTo(const json& m, const json& id) {
  return m.is_object() && !m.contains("method") && m.contains("id") && m["id"] == id &&
         (m.contains("result") || m.contains("error"));
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// One line from an HTTP error answer: the JSON-RPC error's message if the
// body is one, else the body's first non-empty line; at most 200 bytes.
std::string ErrorDetail(const std::string& body) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && parsed.contains("error")) {
    const json& error = parsed["error"];
    if (error.is_object() && error.contains("message") && error["message"].is_string())
      return error["message"].get<std::string>();
    if (error.is_string()) return error.get<std::string>();
  }
  std::string_view rest = body;
  while (!rest.empty()) {
    const std::size_t end = rest.find_first_of("\r\n");
    const std::string_view line = Trim(rest.substr(0, end));
    if (!line.empty()) {
      std::string text(line.substr(0, 200));
      for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
      return text;
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return "";
}

std::string HttpErrorLine(const std::string& url, long status, const std::string& body) {
  std::string line = "HTTP " + std::to_string(status) + " from " + url;
  if (const std::string detail = ErrorDetail(body); !detail.empty()) line += ": " + detail;
  if (status == 401 || status == 403) line += " (check the server's bearer token and headers)";
  return line;
}

bool IsJson(const std::string& content_type) {
  return Trim(AsciiLower(content_type.substr(0, content_type.find(';')))) == "application/json";
}

bool IsHeaderName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

bool HasLineBreak(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

}  // namespace

struct HttpTransport::Stream {
  std::optional<json> request_id;  // none: the GET stream
  bool answered = false;
  std::string last_event_id;
  std::optional<milliseconds> retry;
  std::string failure;  // why the last GET failed (kUnreachable, kRefused)
  StopFlag stop;        // set by Close, or when the client cancelled the request
  BarrierPtr opened;    // released once the GET stream's first answer came
};

struct HttpTransport::Barrier {
  std::atomic<bool> done{false};
};

HttpTransport::HttpTransport(HttpTransportOptions options)
    : options_(std::move(options)),
      pool_(std::make_unique<HttpWorkerPool>(std::max<std::size_t>(1, options_.max_threads))) {}

HttpTransport::HttpTransport(std::string url, std::map<std::string, std::string> headers,
                             std::optional<std::string> bearer_token)
    : HttpTransport(HttpTransportOptions{.url = std::move(url),
                                         .headers = std::move(headers),
                                         .bearer_token = std::move(bearer_token)}) {}

HttpTransport::~HttpTransport() {
  Close();
  pool_->Stop();  // after a Close from a callback, the joining is left here
}

Result<bool, std::string> HttpTransport::Start(TransportEvents events) {
  const std::string& url = options_.url;
  if (!url.starts_with("http://") && !url.starts_with("https://"))
    return Err("the MCP server URL must start with http:// or https://: " + url);
  if (HasLineBreak(url) || url.find(' ') != std::string::npos)
    return Err("the MCP server URL has a space or a line break in it");
  for (const auto& [name, value] : options_.headers) {
    if (!IsHeaderName(name)) return Err("the header name \"" + name + "\" is not a valid name");
    if (HasLineBreak(value)) return Err("the value of header " + name + " has a line break in it");
  }
  if (options_.bearer_token &&
      (options_.bearer_token->empty() || HasLineBreak(*options_.bearer_token)))
    return Err(std::string("the bearer token is empty or has a line break in it"));
  std::lock_guard lock(state_mutex_);
  if (started_) return Err(std::string("the transport was started already"));
  events_ = std::move(events);
  started_ = true;
  return true;
}

Result<bool, std::string> HttpTransport::Send(const json& message) {
  BarrierPtr after;  // what this message waits for
  BarrierPtr mine;   // what the messages after this one wait for
  {
    std::lock_guard lock(state_mutex_);
    if (!started_) return Err(std::string("the transport is not started"));
    if (cancel_.load()) return Err(std::string("the connection to the MCP server is closed"));
    if (IsRequest(message) && message["method"] == "initialize")
      initialize_ids_.insert(Dump(message["id"]));
    after = last_barrier_;
    if (!IsRequest(message)) {
      mine = std::make_shared<Barrier>();
      last_barrier_ = mine;
    }
  }
  if (message.is_object() && message.contains("method") &&
      message["method"] == "notifications/cancelled") {
    Abandon(message);
  }
  std::string body = Dump(message);
  // Jobs start in the order queued, so the one a job waits for has started.
  const bool queued =
      pool_->Run([this, message, body = std::move(body), after, mine](HttpClient& client) mutable {
        if (WaitBarrier(after)) Post(client, message, body, mine);
        Release(mine);
      });
  if (!queued) return Err(std::string("the connection to the MCP server is closed"));
  return true;
}

std::string HttpTransport::session_id() const {
  std::lock_guard lock(state_mutex_);
  return session_id_;
}

std::vector<std::string> HttpTransport::Headers(const char* accept) const {
  std::vector<std::string> headers = {std::string("Accept: ") + accept};
  for (const auto& [name, value] : options_.headers) headers.push_back(name + ": " + value);
  if (options_.bearer_token) headers.push_back("Authorization: Bearer " + *options_.bearer_token);
  std::lock_guard lock(state_mutex_);
  if (!session_id_.empty()) headers.push_back("Mcp-Session-Id: " + session_id_);
  if (!protocol_version_.empty()) headers.push_back("MCP-Protocol-Version: " + protocol_version_);
  return headers;
}

void HttpTransport::NoteHead(const PostResponse& head) {
  const auto it = head.headers.find("mcp-session-id");
  if (it == head.headers.end() || it->second.empty()) return;
  std::lock_guard lock(state_mutex_);
  session_id_ = it->second;
}

// The initialize result names the protocol version every later request
// must carry.
void HttpTransport::NoteResponse(const json& message) {
  if (!message.is_object() || !message.contains("id") || !message.contains("result")) return;
  std::lock_guard lock(state_mutex_);
  const auto it = initialize_ids_.find(Dump(message["id"]));
  if (it == initialize_ids_.end()) return;
  initialize_ids_.erase(it);
  const json& result = message["result"];
  if (result.is_object() && result.contains("protocolVersion") &&
      result["protocolVersion"].is_string()) {
    protocol_version_ = result["protocolVersion"].get<std::string>();
  }
}

void HttpTransport::Deliver(const json& message) {
  if (message.is_array()) {  // a batch (protocol 2025-03-26)
    for (const json& m : message) Deliver(m);
    return;
  }
  if (!message.is_object()) return;
  NoteResponse(message);
  std::lock_guard lock(deliver_mutex_);
  if (silenced_ || !events_.on_message) return;
  in_callback_of = this;
  events_.on_message(message);
  in_callback_of = nullptr;
}

void HttpTransport::FailRequest(const json& id, const std::string& why) {
  if (cancel_.load()) return;  // closing: nobody waits
  Deliver(json{{"jsonrpc", "2.0"},
               {"id", id},
               {"error", {{"code", kTransportErrorCode}, {"message", why}}}});
}

void HttpTransport::Expired() {
  std::lock_guard lock(deliver_mutex_);
  if (silenced_) return;
  silenced_ = true;
  StopTransfers();  // first: once told, the client may Send and must be refused
  if (events_.on_closed) {
    in_callback_of = this;
    events_.on_closed("session expired");
    in_callback_of = nullptr;
  }
}

void HttpTransport::StopTransfers() {
  cancel_ = true;
  {
    std::lock_guard lock(state_mutex_);
    for (auto& [key, flag] : transfers_) *flag = true;
  }
  { std::lock_guard lock(wait_mutex_); }  // a waiter is asleep, or sees the flags
  wait_wake_.notify_all();
}

HttpTransport::StopFlag HttpTransport::Track(const std::string& request_key) {
  auto flag = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard lock(state_mutex_);
  if (cancel_.load()) *flag = true;  // closing: StopTransfers swept already, or will
  transfers_.emplace(request_key, flag);
  return flag;
}

void HttpTransport::Untrack(const std::string& request_key, const StopFlag& flag) {
  std::lock_guard lock(state_mutex_);
  auto [from, to] = transfers_.equal_range(request_key);
  for (auto it = from; it != to; ++it) {
    if (it->second == flag) {
      transfers_.erase(it);
      return;
    }
  }
}

// The client gave up on a request (notifications/cancelled): the server
// will not answer it, so its stream would stay open for nothing. Its
// transfer stops, and no error response is made up for it.
void HttpTransport::Abandon(const json& cancelled_notification) {
  if (!cancelled_notification.contains("params")) return;
  const json& params = cancelled_notification["params"];
  if (!params.is_object() || !params.contains("requestId")) return;
  const std::string key = Dump(params["requestId"]);
  {
    std::lock_guard lock(state_mutex_);
    auto [from, to] = transfers_.equal_range(key);
    for (auto it = from; it != to; ++it) *it->second = true;
  }
  { std::lock_guard lock(wait_mutex_); }
  wait_wake_.notify_all();
}

bool HttpTransport::WaitBarrier(const BarrierPtr& barrier) {
  if (!barrier) return !cancel_.load();
  std::unique_lock lock(wait_mutex_);
  wait_wake_.wait_for(lock, kBarrierWait, [&] { return barrier->done.load() || cancel_.load(); });
  return !cancel_.load();
}

void HttpTransport::Release(const BarrierPtr& barrier) {
  if (!barrier || barrier->done.exchange(true)) return;
  { std::lock_guard lock(wait_mutex_); }
  wait_wake_.notify_all();
}

bool HttpTransport::WaitFor(milliseconds delay, const std::atomic<bool>& stop) {
  std::unique_lock lock(wait_mutex_);
  wait_wake_.wait_for(lock, delay, [&] { return stop.load(); });
  return !stop.load();
}

// Feeds a stream's bytes to its parser and hands on each message as it
// completes; false stops reading (closing, or a resumed request's response
// came: nothing more is awaited there).
bool HttpTransport::Consume(providers::SseParser& parser, Stream& stream, std::string_view bytes) {
  if (stream.stop->load()) return false;
  std::vector<providers::SseEvent> events;
  parser.Feed(bytes, events);
  for (const providers::SseEvent& event : events) {
    if (!event.type.empty() && event.type != "message") continue;
    if (event.data.empty()) continue;  // a priming event, or a keep-alive
    const json m = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
    if (m.is_discarded()) continue;  // garbage in one event: the rest may be fine
    if (stream.request_id && IsResponseTo(m, *stream.request_id)) stream.answered = true;
    Deliver(m);
  }
  if (!parser.last_event_id().empty()) stream.last_event_id = parser.last_event_id();
  if (parser.retry()) stream.retry = parser.retry();
  return true;
}

void HttpTransport::Post(HttpClient& client, const json& message, const std::string& body,
                         BarrierPtr& barrier) {
  std::optional<json> id;
  if (IsRequest(message)) id = message["id"];
  PostRequest request;
  request.url = options_.url;
  request.headers = Headers("application/json, text/event-stream");
  request.headers.push_back("Content-Type: application/json");
  const bool had_session =
      std::any_of(request.headers.begin(), request.headers.end(),
                  [](const std::string& h) { return h.starts_with("Mcp-Session-Id: "); });
  request.body = body;
  request.connect_timeout = options_.connect_timeout;
  request.stall_timeout = kStreamStall;
  request.kept_body_limit = kJsonAnswerLimit;
  request.on_head = [this](const PostResponse& head) { NoteHead(head); };

  Stream stream;
  stream.request_id = id;
  const std::string key = id ? Dump(*id) : "";
  stream.stop = Track(key);
  struct Untracker {
    HttpTransport* transport;
    const std::string& key;
    const StopFlag& flag;
    ~Untracker() { transport->Untrack(key, flag); }
  } untrack{this, key, stream.stop};
  bool stream_began = false;
  providers::SseParser parser;
  const auto on_bytes = [&](std::string_view bytes) {
    stream_began = true;
    // Once answered, let go of the stream (a server should close it, but
    // one that does not would hold this thread for good).
    return Consume(parser, stream, bytes) && !stream.answered;
  };

  auto posted = client.Post(request, on_bytes, *stream.stop);
  if (stream.answered) return;
  if (stream.stop->load()) return;
  if (!posted) {
    const providers::TransferError& error = posted.error();
    if (error.kind == TransferFailure::kCancelled || error.kind == TransferFailure::kStopped)
      return;
    if (stream_began) {  // the answer's stream broke: resume it below
    } else if (error.kind == TransferFailure::kConnect ||
               error.kind == TransferFailure::kUnusable) {
      if (id)
        FailRequest(*id, "cannot reach the MCP server at " + options_.url + ": " + error.detail);
      return;
    } else {
      const std::string why = error.kind == TransferFailure::kStalled
                                  ? "the MCP server sent nothing for an hour"
                                  : "the connection to " + options_.url + " broke: " + error.detail;
      if (id) FailRequest(*id, why);
      return;
    }
  } else {
    const PostResponse& response = *posted;
    if (had_session && SessionGone(response)) return Expired();
    if (response.status < 200 || response.status >= 300) {
      if (id) FailRequest(*id, HttpErrorLine(options_.url, response.status, response.body));
      return;
    }
    if (!id) {
      if (message.is_object() && message.contains("method") &&
          message["method"] == "notifications/initialized") {
        // This thread becomes the GET stream's; what was sent after the
        // notification goes once the stream is open (or refused).
        {
          std::lock_guard lock(state_mutex_);
          if (get_stream_opened_) return;
          get_stream_opened_ = true;
        }
        Stream get_stream;
        get_stream.stop = Track("");
        get_stream.opened = std::move(barrier);
        Follow(client, get_stream);
        Release(get_stream.opened);
        Untrack("", get_stream.stop);
      }
      return;
    }
    if (!response.streamed) {
      if (!IsJson(response.content_type)) {
        FailRequest(*id, "the MCP server answered with content type \"" + response.content_type +
                             "\", neither JSON nor an event stream");
        return;
      }
      const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
      if (answer.is_discarded()) {
        FailRequest(*id,
                    "the MCP server's answer is not valid JSON: " + ErrorDetail(response.body));
        return;
      }
      Deliver(answer);
      return;
    }
  }
  if (stream.answered) return;
  if (stream.last_event_id.empty()) {
    FailRequest(*id,
                "the MCP server ended the answer's stream before answering, with no event id "
                "to resume it by");
    return;
  }
  Follow(client, stream);
}

// Resumes a request's stream until its response came, or keeps the GET
// stream open: each GET after the server's `retry:` time (the GET stream's
// first at once), twice as long after each failed attempt.
void HttpTransport::Follow(HttpClient& client, Stream& stream) {
  const bool is_get_stream = !stream.request_id;
  int failures = 0;
  bool wait = !is_get_stream;
  while (true) {
    if (wait) {
      const milliseconds base = stream.retry.value_or(options_.default_retry);
      milliseconds delay = base;
      for (int i = 0; i < failures && delay < options_.max_retry_delay; ++i) delay *= 2;
      delay = std::min(delay, std::max(base, options_.max_retry_delay));
      delay = std::max(delay, kMinRetry);  // `retry: 0` must not make a busy loop
      if (!WaitFor(delay, *stream.stop)) return;
    }
    wait = true;
    switch (Get(client, stream)) {
      case GetOutcome::kAnswered:
      case GetOutcome::kCancelled:
        return;
      case GetOutcome::kExpired:
        return Expired();
      case GetOutcome::kEnded:
        failures = 0;
        continue;
      case GetOutcome::kRefused:
        // The server will not give this stream (405: it offers none).
        if (!is_get_stream && !stream.stop->load()) {
          FailRequest(*stream.request_id, "cannot resume the answer's stream: " + stream.failure);
        }
        return;
      case GetOutcome::kUnreachable:
        if (++failures < options_.reconnect_attempts) continue;
        if (!is_get_stream && !stream.stop->load()) {
          FailRequest(*stream.request_id, "cannot resume the answer's stream: " + stream.failure);
        }
        return;
    }
  }
}

HttpTransport::GetOutcome HttpTransport::Get(HttpClient& client, Stream& stream) {
  PostRequest request;
  request.url = options_.url;
  request.method = "GET";
  request.headers = Headers("text/event-stream");
  if (!stream.last_event_id.empty())
    request.headers.push_back("Last-Event-ID: " + stream.last_event_id);
  const bool had_session =
      std::any_of(request.headers.begin(), request.headers.end(),
                  [](const std::string& h) { return h.starts_with("Mcp-Session-Id: "); });
  request.connect_timeout = options_.connect_timeout;
  request.stall_timeout = kStreamStall;
  request.on_head = [this, &stream](const PostResponse& head) {
    NoteHead(head);
    Release(stream.opened);
  };
  bool stream_began = false;
  providers::SseParser parser;
  const bool resuming_request = stream.request_id.has_value();
  const auto on_bytes = [&](std::string_view bytes) {
    stream_began = true;
    return Consume(parser, stream, bytes) && !(resuming_request && stream.answered);
  };
  auto got = client.Post(request, on_bytes, *stream.stop);
  Release(stream.opened);  // no answer at all: what waits goes anyway
  if (stream.stop->load()) return GetOutcome::kCancelled;
  if (stream.answered) return GetOutcome::kAnswered;
  if (!got) {
    if (stream_began) return GetOutcome::kEnded;  // broke: resume again
    stream.failure = got.error().detail.empty() ? "the connection failed" : got.error().detail;
    return GetOutcome::kUnreachable;
  }
  if (had_session && SessionGone(*got)) return GetOutcome::kExpired;
  if (!got->streamed) {
    stream.failure =
        got->status >= 200 && got->status < 300
            ? "the server answered a GET with \"" + got->content_type + "\", not an event stream"
            : HttpErrorLine(options_.url, got->status, got->body);
    return GetOutcome::kRefused;
  }
  return GetOutcome::kEnded;
}

void HttpTransport::Close() {
  {
    std::unique_lock lock(deliver_mutex_, std::defer_lock);
    if (in_callback_of != this) lock.lock();  // a callback in progress on this thread holds it
    silenced_ = true;
  }
  bool delete_session = false;
  {
    std::lock_guard lock(state_mutex_);
    if (closed_) return;
    closed_ = true;
    // cancel_ before Close: the session expired, nothing to delete.
    delete_session = !session_id_.empty() && !cancel_.load();
  }
  StopTransfers();
  if (!pool_->OnWorkerThread()) pool_->Stop();
  if (!delete_session) return;
  // The server may free the session now; 405 (it does not allow it) and
  // any failure change nothing for us.
  PostRequest request;
  request.url = options_.url;
  request.method = "DELETE";
  request.headers = Headers("application/json, text/event-stream");
  request.connect_timeout = kDeleteTimeout;
  request.stall_timeout = kDeleteTimeout;
  const std::atomic<bool> never{false};
  HttpClient client;
  (void)client.Post(
      request, [](std::string_view) { return true; }, never);
}

}  // namespace ikigai::mcpclient
