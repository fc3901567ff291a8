// Anthropic Messages, streamed.
//
// Request: POST {base}/v1/messages with x-api-key and anthropic-version
// headers; the system prompt as "system"; an assistant turn as content
// blocks (its text, then a tool_use block per call, with the arguments
// parsed back into an object, {} when the model's JSON was invalid); the
// results of one turn as a single user message of tool_result blocks, in
// order (two user turns in a row become one message of blocks); the tools
// with "input_schema". Prompt caching: cache_control breakpoints on the last
// tool, the system prompt and the latest message's last block, so each
// request reads what the previous one wrote (usage reports both).
//
// Answer: named events. message_start (input tokens), content_block_start
// (a text block, or a tool_use block with its id and name),
// content_block_delta (text_delta to the sink; input_json_delta appended to
// the call's arguments), content_block_stop (a call is complete: "" becomes
// "{}" and the sink hears of it), message_delta (stop_reason, output
// tokens), message_stop (the end), ping (ignored), error (overloaded or rate
// limited: kRateLimited, else kServer). Other block types (thinking) are
// skipped.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "providers/http_client.h"
#include "providers/provider.h"
#include "providers/wire_cache.h"

namespace ikigai::providers {

inline constexpr const char* kAnthropicDefaultBaseUrl = "https://api.anthropic.com";
inline constexpr const char* kAnthropicVersion = "2023-06-01";

class AnthropicProvider final : public Provider {
 public:
  explicit AnthropicProvider(ProviderSettings settings);
  Result<Turn, ProviderError> StreamTurn(const TurnRequest& request, const StreamSink& sink,
                                         const std::atomic<bool>& cancel) override;
  std::string name() const override { return "anthropic"; }

 private:
  ProviderSettings settings_;
  std::mutex mutex_;  // one turn at a time on the one connection
  HttpClient http_;
  WireCache wire_;  // the last request's messages, serialized
};

// The request body, as JSON text (exposed for tests). With a cache, the
// messages serialized for the previous request are reused.
std::string AnthropicRequestBody(const TurnRequest& request, WireCache* cache = nullptr);

}  // namespace ikigai::providers
