// An LLM provider: one streamed model turn at a time.
//
// Three implementations: OpenAI-compatible Chat Completions (OpenAI, and
// llama.cpp, Ollama, vLLM through a base URL), Anthropic Messages and Google
// Gemini. All three stream over HTTP (libcurl) as server-sent events, call the sink as text
// arrives, assemble tool calls, retry 429 and 5xx with backoff (honouring
// Retry-After, a bounded number of times), and stop when cancelled.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "providers/conversation.h"

namespace ikigai::providers {

struct TurnRequest {
  std::string model;
  std::string system;  // the system prompt
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  int max_tokens = 8192;
  // For reasoning models (OpenAI's o series and gpt-5): "minimal", "low",
  // "medium" or "high"; empty: the provider's default. Others ignore it.
  std::string reasoning_effort = {};
};

struct Turn {
  std::string text;                  // the assistant's text, whole
  std::vector<ToolCall> tool_calls;  // in the order the model gave them
  std::string finish_reason;         // provider's words: "stop", "tool_calls", "end_turn", ...
  Usage usage;
  // The turn in the provider's own form, for a provider that must get it
  // back exactly (Message::replay); null for the others.
  nlohmann::json replay = nullptr;
};

enum class ErrorKind {
  kAuth,            // 401/403: the message says which variable to set
  kRateLimited,     // 429 after the retries
  kServer,          // 5xx after the retries, or another HTTP error
  kNetwork,         // connection failed, lost mid-stream, or stalled
  kProtocol,        // malformed stream or JSON
  kContextTooLong,  // the request is larger than the model's context window
  kCancelled,
};

struct ProviderError {
  ErrorKind kind;
  std::string message;  // what happened and what to do
  // The same request may work if sent again (a reset connection, an
  // overloaded server): retried while nothing has reached the user yet.
  bool transient = false;
};

// Receives the stream as it arrives (for printing); any member may be empty.
// Only the Turn that StreamTurn returns is authoritative: after an error,
// calls already shown through on_tool_call must not be run.
struct StreamSink {
  std::function<void(std::string_view text)> on_text;
  // Once each call is complete: OpenAI at the end of the stream (in index
  // order), Anthropic at the call's content_block_stop, Gemini as each
  // functionCall part arrives.
  std::function<void(const ToolCall& call)> on_tool_call;
  // Before waiting to retry a 429 or 5xx: what happened ("rate limited (HTTP
  // 429: ...)") and how long the wait is, so the user is not left guessing.
  std::function<void(std::string_view reason, std::chrono::milliseconds wait)> on_retry;
};

class Provider {
 public:
  virtual ~Provider() = default;
  // `cancel` becoming true stops the request (the stream is closed) within
  // about 20 ms, also while waiting to retry. One turn at a time per
  // Provider (calls from several threads are serialized).
  virtual Result<Turn, ProviderError> StreamTurn(const TurnRequest& request, const StreamSink& sink,
                                                 const std::atomic<bool>& cancel) = 0;
  virtual std::string name() const = 0;  // "openai", "anthropic" or "gemini"
};

struct ProviderSettings {
  std::string kind;      // "openai" | "anthropic" | "gemini"
  std::string base_url;  // e.g. https://api.openai.com/v1, https://api.anthropic.com
  std::string api_key;   // may be empty: then StreamTurn answers kAuth with a hint
  int max_retries = 3;
  long stall_timeout_ms = 60000;  // no byte for this long: kNetwork
  long connect_timeout_ms = 10000;
};

// kind "openai", "anthropic" or "gemini" (nullptr for anything else: the configuration
// checks the kind first). An empty base_url means the provider's default.
std::unique_ptr<Provider> MakeProvider(const ProviderSettings& settings);

}  // namespace ikigai::providers
