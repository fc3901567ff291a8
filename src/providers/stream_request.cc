#include "providers/stream_request.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <thread>
#include <vector>

#include "base/format.h"

namespace ikigai::providers {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFirstDelay{500};
constexpr milliseconds kMaxDelay{8000};
constexpr milliseconds kMaxRetryAfter{30000};
constexpr std::size_t kSnippet = 300;

std::string Shorten(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, kSnippet)) out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (text.size() > kSnippet) out += "...";
  return out;
}

// "HTTP 503: Overloaded", or "HTTP 503" when the body says nothing.
std::string StatusText(const PostResponse& r) {
  std::string text = "HTTP " + std::to_string(r.status);
  if (std::string message = ErrorMessageFromBody(r.body); !message.empty()) text += ": " + message;
  return text;
}

// Sleeps, looking at the cancel flag every 20 ms; false if cancelled.
bool SleepUnlessCancelled(milliseconds wait, const std::atomic<bool>& cancel) {
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    if (cancel.load()) return false;
    std::this_thread::sleep_for(std::min(
        milliseconds(20),
        std::chrono::duration_cast<milliseconds>(until - std::chrono::steady_clock::now())));
  }
  return !cancel.load();
}

ProviderError Cancelled() { return {ErrorKind::kCancelled, "cancelled"}; }

ProviderError FromTransfer(const TransferError& e, const PostRequest& post) {
  switch (e.kind) {
    case TransferFailure::kConnect:
      return {ErrorKind::kNetwork, "could not connect to " + post.url + ": " + e.detail, true};
    case TransferFailure::kUnusable:
      return {ErrorKind::kNetwork, "cannot connect to " + post.url + ": " + e.detail +
                                       "; check the base URL (and the certificates, for https)"};
    case TransferFailure::kLost:
      return {ErrorKind::kNetwork,
              "the connection closed before the answer was complete (" + e.detail + ")", true};
    case TransferFailure::kStalled:
      return {ErrorKind::kNetwork,
              "the server sent nothing for " + FormatDuration(post.stall_timeout) +
                  "; gave up waiting for the answer",
              true};
    case TransferFailure::kCancelled:
      return Cancelled();
    case TransferFailure::kStopped:
      break;  // the decoder's error is reported instead
  }
  return {ErrorKind::kProtocol, "the stream was stopped"};
}

// A 2xx answer that is not an event stream.
ProviderError NotAStream(const PostResponse& r) {
  const nlohmann::json body = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.contains("error")) {
    return {ErrorKind::kServer,
            "the server answered with an error: " + ErrorMessageFromBody(r.body)};
  }
  const std::string type = r.content_type.empty() ? "no content type" : r.content_type;
  if (body.is_discarded() && type.find("json") != std::string::npos) {
    return {ErrorKind::kProtocol, "the server answered with malformed JSON (" + type +
                                      ") instead of an event stream: " + Shorten(r.body)};
  }
  return {ErrorKind::kProtocol,
          "the server answered with " + type + " instead of an event stream: " + Shorten(r.body)};
}

}  // namespace

StreamCall StreamCallFor(const ProviderSettings& settings, std::string url,
                         std::vector<std::string> headers, std::string body,
                         std::string key_variable) {
  StreamCall call;
  call.post.url = std::move(url);
  call.post.headers = std::move(headers);
  call.post.headers.push_back("Content-Type: application/json");
  call.post.headers.push_back("Accept: text/event-stream");
  call.post.body = std::move(body);
  call.post.connect_timeout = std::chrono::milliseconds(settings.connect_timeout_ms);
  call.post.stall_timeout = std::chrono::milliseconds(settings.stall_timeout_ms);
  call.key_variable = std::move(key_variable);
  call.max_retries = settings.max_retries;
  return call;
}

ProviderError MissingKey(std::string_view key_variable, std::string_view hint) {
  std::string message = "no API key: set " + std::string(key_variable);
  if (!hint.empty()) message += " (" + std::string(hint) + ")";
  return {ErrorKind::kAuth, std::move(message)};
}

milliseconds RetryDelay(int retry, std::optional<milliseconds> retry_after) {
  if (retry_after) return std::clamp(*retry_after, milliseconds(0), kMaxRetryAfter);
  milliseconds delay = kFirstDelay;
  for (int i = 0; i < retry && delay < kMaxDelay; ++i) delay *= 2;
  return std::min(delay, kMaxDelay);
}

bool SaysContextTooLong(std::string_view text) {
  const std::string lower = AsciiLower(text);
  for (const char* words :
       {"context_length_exceeded", "prompt is too long", "maximum context length", "context window",
        "exceeds the maximum number of tokens", "input token count",
        "exceeds the available context size", "context size has been exceeded", "too many tokens",
        "input is too long", "exceed_context_size"}) {
    if (lower.find(words) != std::string::npos) return true;
  }
  return false;
}

std::string ErrorMessageFromBody(std::string_view body) {
  const nlohmann::json json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object()) {
    auto string_at = [](const nlohmann::json& object, const char* key) -> const std::string* {
      auto it = object.find(key);
      return it != object.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
    };
    if (auto error = json.find("error"); error != json.end()) {
      if (error->is_string()) return Shorten(error->get_ref<const std::string&>());
      if (error->is_object()) {
        if (const std::string* m = string_at(*error, "message")) return Shorten(*m);
      }
    }
    for (const char* key : {"message", "detail"}) {
      if (const std::string* m = string_at(json, key)) return Shorten(*m);
    }
  }
  std::string_view text = body;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return Shorten(text);
}

Result<std::monostate, ProviderError> RunStream(HttpClient& http, const StreamCall& call,
                                                EventDecoder& decoder, const RetryNotice& on_retry,
                                                const std::atomic<bool>& cancel) {
  for (int attempt = 0;; ++attempt) {
    SseParser parser;
    std::vector<SseEvent> events;
    std::optional<ProviderError> decoder_error;
    auto on_stream = [&](std::string_view bytes) {
      parser.Feed(bytes, events);
      for (const SseEvent& event : events) {
        decoder_error = decoder.OnEvent(event);
        if (decoder_error) return false;
      }
      events.clear();
      return true;
    };
    auto posted = http.Post(call.post, on_stream, cancel);
    // Whatever failed before the user saw anything and may work next time
    // is tried again: a refused or reset connection, a TLS failure, a stall,
    // a stream cut short, a server that reports overload or its own failure
    // inside the stream. A malformed URL, a malformed stream or a refusal in
    // it (a context too long) is not. Nullopt: try again.
    const auto fail_or_retry = [&](ProviderError error) -> std::optional<ProviderError> {
      if (!error.transient || decoder.Emitted()) return error;
      if (attempt >= call.max_retries) {
        if (attempt > 0)
          error.message +=
              " after " + std::to_string(attempt) + (attempt == 1 ? " retry" : " retries");
        return error;
      }
      const milliseconds wait = RetryDelay(attempt, std::nullopt);
      if (on_retry) on_retry(error.message, wait);
      if (!SleepUnlessCancelled(wait, cancel)) return Cancelled();
      decoder.Reset();
      return std::nullopt;
    };
    if (!posted) {
      auto error = fail_or_retry(decoder_error ? std::move(*decoder_error)
                                               : FromTransfer(posted.error(), call.post));
      if (error) return Err(std::move(*error));
      continue;
    }
    const PostResponse& response = *posted;
    if (response.streamed) {
      if (decoder.Complete(/*clean_end=*/true)) return std::monostate{};
      auto error = fail_or_retry(
          {ErrorKind::kNetwork, "the connection closed before the answer was complete", true});
      if (error) return Err(std::move(*error));
      continue;
    }
    const long status = response.status;
    if (status >= 200 && status < 300) return Err(NotAStream(response));
    if (status == 401 || status == 403) {
      return Err(ProviderError{ErrorKind::kAuth, "the server refused the API key (" +
                                                     StatusText(response) + "); set " +
                                                     call.key_variable + " to a valid key"});
    }
    const bool rate_limited = status == 429;
    if (!rate_limited && status < 500 && SaysContextTooLong(response.body)) {
      return Err(ProviderError{ErrorKind::kContextTooLong,
                               "the conversation is longer than the model's context window (" +
                                   StatusText(response) + ")"});
    }
    if (!rate_limited && status < 500) {
      std::string message = "the server refused the request (" + StatusText(response) + ")";
      if (status == 404) message += "; check the base URL and the model name";
      return Err(ProviderError{ErrorKind::kServer, std::move(message)});
    }
    const std::string what =
        (rate_limited ? "rate limited (" : "server error (") + StatusText(response) + ")";
    if (attempt >= call.max_retries) {
      std::string message = what;
      if (attempt > 0)
        message += " after " + std::to_string(attempt) + (attempt == 1 ? " retry" : " retries");
      return Err(ProviderError{rate_limited ? ErrorKind::kRateLimited : ErrorKind::kServer,
                               std::move(message)});
    }
    const milliseconds wait = RetryDelay(attempt, response.retry_after);
    if (on_retry) on_retry(what, wait);
    if (!SleepUnlessCancelled(wait, cancel)) return Err(Cancelled());
  }
}

}  // namespace ikigai::providers
