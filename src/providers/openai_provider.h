// OpenAI-compatible Chat Completions, streamed (OpenAI, and llama.cpp,
// Ollama, vLLM and others through the base URL).
//
// Request: POST {base}/chat/completions with the system prompt as the first
// message, assistant tool calls as "tool_calls", each result as a "tool"
// message with its tool_call_id, and the tools as functions. The limit is
// sent as "max_tokens", which every compatible server reads, except to
// OpenAI's reasoning models (o1, o3, o4-mini, gpt-5 and their versions),
// which want "max_completion_tokens" and take "reasoning_effort".
//
// Answer: "data:" chunks until "data: [DONE]". Text deltas go to the sink as
// they come; tool calls arrive as fragments keyed by index (id and name in
// the first, the arguments cut anywhere), are assembled, and are given to the
// sink in index order when the stream ends. Usage comes in the last chunk
// (stream_options.include_usage).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "providers/http_client.h"
#include "providers/provider.h"
#include "providers/wire_cache.h"

namespace ikigai::providers {

inline constexpr const char* kOpenAiDefaultBaseUrl = "https://api.openai.com/v1";

class OpenAiProvider final : public Provider {
 public:
  explicit OpenAiProvider(ProviderSettings settings);
  Result<Turn, ProviderError> StreamTurn(const TurnRequest& request, const StreamSink& sink,
                                         const std::atomic<bool>& cancel) override;
  std::string name() const override { return "openai"; }

 private:
  ProviderSettings settings_;
  std::mutex mutex_;  // one turn at a time on the one connection
  HttpClient http_;
  WireCache wire_;  // the last request's messages, serialized
};

// The request body, as JSON text (exposed for tests). With a cache, the
// messages serialized for the previous request are reused.
std::string OpenAiRequestBody(const TurnRequest& request, WireCache* cache = nullptr);

// Whether `model` names one of OpenAI's reasoning models.
bool IsReasoningModel(std::string_view model);

}  // namespace ikigai::providers
