#include "providers/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "base/format.h"

namespace ikigai::providers {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPollMs = 20;

// What the callbacks share during one transfer.
struct Transfer {
  CURL* easy = nullptr;
  const std::function<bool(std::string_view)>* on_stream = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  const PostRequest* request = nullptr;
  PostResponse response;
  bool decided = false;  // whether the body streams is known once it starts
  bool stopped = false;  // the callback asked to stop
  Clock::time_point last_activity;
  curl_off_t uploaded = 0;
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::optional<long> ParseDigits(std::string_view s) {
  long value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data() || value < 0) return std::nullopt;
  // "1500.5" (retry-after-ms may carry a fraction): the whole part is enough.
  if (end != s.data() + s.size() && *end != '.') return std::nullopt;
  return value;
}

void Decide(Transfer& t);

size_t OnHeader(char* buffer, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(buffer, size * count);
  t->last_activity = Clock::now();
  if (line.starts_with("HTTP/")) {  // a new response (after a 100 Continue, say)
    t->response.retry_after.reset();
    t->response.headers.clear();
    return line.size();
  }
  if (Trim(line).empty()) {  // the head ends: known before any body (an event
    long status = 0;         // stream may send nothing for long)
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && !t->decided) Decide(*t);
    return line.size();
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return line.size();
  const std::string_view name = Trim(line.substr(0, colon));
  const std::string_view value = Trim(line.substr(colon + 1));
  t->response.headers[AsciiLower(name)] = std::string(value);
  if (EqualsIgnoreCase(name, "retry-after-ms")) {
    if (auto ms = ParseDigits(value)) t->response.retry_after = std::chrono::milliseconds(*ms);
  } else if (EqualsIgnoreCase(name, "retry-after") && !t->response.retry_after) {
    t->response.retry_after = ParseRetryAfter(value);
  }
  return line.size();
}

void Decide(Transfer& t) {
  t.decided = true;
  long status = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  const char* type = nullptr;
  curl_easy_getinfo(t.easy, CURLINFO_CONTENT_TYPE, &type);
  t.response.status = status;
  t.response.content_type = type ? type : "";
  const std::string_view media = std::string_view(t.response.content_type).substr(0, 17);
  t.response.streamed =
      status >= 200 && status < 300 && EqualsIgnoreCase(media, "text/event-stream");
  if (t.request->on_head) t.request->on_head(t.response);
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view bytes(data, size * count);
  t->last_activity = Clock::now();
  if (!t->decided) Decide(*t);
  if (t->response.streamed) {
    if (!(*t->on_stream)(bytes)) {
      t->stopped = true;
      return 0;  // not the size given: libcurl stops with CURLE_WRITE_ERROR
    }
    return bytes.size();
  }
  std::string& kept = t->response.body;
  const std::size_t limit = t->request->kept_body_limit;
  kept.append(bytes.substr(0, limit - std::min(limit, kept.size())));
  return bytes.size();
}

// Called by libcurl regularly, also while nothing arrives: counts upload
// progress as activity and stops a cancelled transfer from inside libcurl.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t uploaded) {
  auto* t = static_cast<Transfer*>(user);
  if (uploaded != t->uploaded) {
    t->uploaded = uploaded;
    t->last_activity = Clock::now();
  }
  return t->cancel->load() ? 1 : 0;
}

// Failures that no retry can mend: the request itself is wrong.
bool IsUnusable(CURLcode code) {
  switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      return true;
    default:
      return false;
  }
}

bool IsConnectFailure(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CIPHER:
      return true;
    default:
      return false;
  }
}

// The proxy exceptions: the environment's, plus the loopback addresses (a
// local model server is never behind the proxy, nor are the tests' servers).
std::string NoProxy() {
  std::string list = "localhost,127.0.0.1,::1";
  for (const char* name : {"no_proxy", "NO_PROXY"}) {
    if (const char* value = std::getenv(name); value && *value)
      return std::string(value) + "," + list;
  }
  return list;
}

void InitCurlOnce() {
  static const bool done = [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      std::fputs("ikigai: bug: libcurl failed to initialize\n", stderr);
      std::abort();
    }
    return true;
  }();
  (void)done;
}

}  // namespace

std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view value) {
  value = Trim(value);
  if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    return std::nullopt;  // an HTTP date, or nonsense
  }
  const auto seconds = ParseDigits(value.substr(0, 9));  // more than 30 years is "long"
  if (!seconds) return std::nullopt;
  return std::chrono::milliseconds(*seconds * 1000);
}

HttpClient::HttpClient() {
  InitCurlOnce();
  easy_ = curl_easy_init();
  multi_ = curl_multi_init();
  if (!easy_ || !multi_) {
    std::fputs("ikigai: bug: libcurl could not create a handle\n", stderr);
    std::abort();
  }
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(static_cast<CURL*>(easy_));
  curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

Result<PostResponse, TransferError> HttpClient::Post(
    const PostRequest& request, const std::function<bool(std::string_view)>& on_stream,
    const std::atomic<bool>& cancel) {
  CURL* easy = static_cast<CURL*>(easy_);
  CURLM* multi = static_cast<CURLM*>(multi_);
  if (cancel.load()) return Err(TransferError{TransferFailure::kCancelled, "", 0});

  Transfer t;
  t.easy = easy;
  t.on_stream = &on_stream;
  t.cancel = &cancel;
  t.request = &request;
  t.last_activity = Clock::now();

  curl_slist* headers = nullptr;
  for (const std::string& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  char error[CURL_ERROR_SIZE] = {};

  curl_easy_reset(easy);  // keeps the connection cache
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  const std::string no_proxy = NoProxy();
  curl_easy_setopt(easy, CURLOPT_NOPROXY, no_proxy.c_str());
  if (request.method == "POST") {
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, "ikigai");
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, &OnProgress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);

  curl_multi_add_handle(multi, easy);
  std::optional<TransferFailure> interrupted;
  CURLcode code = CURLE_OK;
  bool finished = false;
  while (!finished) {
    int running = 0;
    if (curl_multi_perform(multi, &running) != CURLM_OK) {
      code = CURLE_RECV_ERROR;
      break;
    }
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) {
        code = msg->data.result;
        finished = true;
      }
    }
    if (finished) break;
    if (cancel.load()) {
      interrupted = TransferFailure::kCancelled;
      break;
    }
    if (Clock::now() - t.last_activity > request.stall_timeout) {
      interrupted = TransferFailure::kStalled;
      break;
    }
    curl_multi_poll(multi, nullptr, 0, kPollMs, nullptr);
  }
  curl_multi_remove_handle(multi, easy);  // mid-transfer, this closes the connection
  curl_slist_free_all(headers);
  if (!t.decided) Decide(t);  // an answer without a body

  const long status = t.response.status;
  if (interrupted) return Err(TransferError{*interrupted, "", status});
  if (code == CURLE_OK) return std::move(t.response);
  if (t.stopped) return Err(TransferError{TransferFailure::kStopped, "", status});
  if (code == CURLE_ABORTED_BY_CALLBACK)
    return Err(TransferError{TransferFailure::kCancelled, "", status});
  std::string detail = error[0] ? error : curl_easy_strerror(code);
  if (code == CURLE_OPERATION_TIMEDOUT && status == 0) {
    return Err(TransferError{TransferFailure::kConnect, std::move(detail), status});
  }
  const TransferFailure kind = IsUnusable(code)         ? TransferFailure::kUnusable
                               : IsConnectFailure(code) ? TransferFailure::kConnect
                                                        : TransferFailure::kLost;
  return Err(TransferError{kind, std::move(detail), status});
}

}  // namespace ikigai::providers
