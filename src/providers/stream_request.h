// What a streamed turn does the same way for every provider: send the
// request, retry what is worth retrying, read the answer as server-sent
// events, and turn every failure into a ProviderError a person can act on.
//
// - 401/403: kAuth, naming the variable that holds the key.
// - 429 and 5xx: retried up to max_retries times, waiting what Retry-After
//   (or retry-after-ms) says, capped at 30 s, else 0.5 s, 1 s, 2 s, ... up to
//   8 s; the wait is cancellable. After the last retry: kRateLimited or
//   kServer with the server's own message.
// - Another status: kServer with the server's message.
// - The answer stops before the provider's terminal event: kNetwork.
// - No byte for stall_timeout: kNetwork. Cancel: kCancelled.
// The provider supplies the request and an EventDecoder that reads its
// events; the first error the decoder reports ends the stream.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "base/result.h"
#include "providers/http_client.h"
#include "providers/provider.h"
#include "providers/sse_parser.h"

namespace ikigai::providers {

class EventDecoder {
 public:
  virtual ~EventDecoder() = default;
  // An error stops the stream (malformed JSON, an error event).
  virtual std::optional<ProviderError> OnEvent(const SseEvent& event) = 0;
  // Whether the answer is whole. `clean_end`: the server ended the body
  // properly (rather than the connection breaking).
  virtual bool Complete(bool clean_end) const = 0;
  // Whether text or a tool call has reached the sink (the user saw it): a
  // failure after that cannot be retried without showing it twice.
  virtual bool Emitted() const = 0;
  // Back to nothing received, for a retry.
  virtual void Reset() = 0;
};

struct StreamCall {
  PostRequest post;          // url, headers (with the key), body, timeouts
  std::string key_variable;  // "OPENAI_API_KEY": what an auth error tells to set
  int max_retries = 3;
};

// A call to `url` with the provider's timeouts and retries; `headers` hold
// the key, `key_variable` is what an auth error tells to set.
StreamCall StreamCallFor(const ProviderSettings& settings, std::string url,
                         std::vector<std::string> headers, std::string body,
                         std::string key_variable);

using RetryNotice = std::function<void(std::string_view reason, std::chrono::milliseconds wait)>;

Result<std::monostate, ProviderError> RunStream(HttpClient& http, const StreamCall& call,
                                                EventDecoder& decoder, const RetryNotice& on_retry,
                                                const std::atomic<bool>& cancel);

// kAuth before anything is sent, when there is no key.
ProviderError MissingKey(std::string_view key_variable, std::string_view hint = {});

// The wait before retry number `retry` (0 for the first).
std::chrono::milliseconds RetryDelay(int retry,
                                     std::optional<std::chrono::milliseconds> retry_after);

// The message in an error body ({"error": {"message": ...}} and its
// cousins), else the body's text, shortened; "" for an empty body.
std::string ErrorMessageFromBody(std::string_view body);

// Whether a refusal's words (its body, or an error event's message and
// code) say the request is larger than the model's context window, in the
// words each provider uses: Anthropic "prompt is too long", OpenAI
// "context_length_exceeded", Gemini "exceeds the maximum number of
// tokens", llama.cpp "exceeds the available context size", and the like.
bool SaysContextTooLong(std::string_view text);

}  // namespace ikigai::providers
