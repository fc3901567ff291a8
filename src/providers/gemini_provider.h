// Google Gemini (the Generative Language API), streamed.
//
// Request: POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse
// with the key in x-goog-api-key; the system prompt as systemInstruction;
// the conversation as contents of role "user" and "model"; the tools as
// functionDeclarations with their schema in parametersJsonSchema (full JSON
// Schema, where "parameters" takes only the OpenAPI subset); the limit as
// generationConfig.maxOutputTokens.
//
// A model turn goes back exactly as it came (Message::replay, {"provider":
// "gemini", "parts": [...]}): Gemini 3 refuses a conversation whose thought
// signatures were dropped or moved. A turn without that form (another
// provider's, an older log) is rebuilt from its text and calls. The results
// of one turn are one user content of functionResponse parts, in order, the
// wrapper's JSON as the response object; a call the model gave no id to
// (Gemini 2.x) gets "gemini_call_<n>" in ikigai and no id on the wire.
// Consecutive contents of one role are merged.
//
// Answer: "data:" chunks, each a GenerateContentResponse. Text parts go to
// the sink as they come (thought parts are kept for the replay, never
// shown); each functionCall part is one whole call (several in one turn are
// parallel calls, in order). finishReason STOP or FUNCTION_CALL (aimock's,
// never the real API's) ends the turn, MAX_TOKENS too; a blocking reason
// (SAFETY, RECITATION, ...) or a blocked prompt is an error. usageMetadata
// (the last one wins) gives the usage: promptTokenCount includes the cached
// tokens, which are counted apart; thoughtsTokenCount is output. An error
// object in the stream is kServer (transient when the server's own:
// INTERNAL, UNAVAILABLE), kRateLimited for RESOURCE_EXHAUSTED. A stream that
// ends without a finishReason is incomplete.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "providers/http_client.h"
#include "providers/provider.h"
#include "providers/wire_cache.h"

namespace ikigai::providers {

inline constexpr const char* kGeminiDefaultBaseUrl = "https://generativelanguage.googleapis.com";

class GeminiProvider final : public Provider {
 public:
  explicit GeminiProvider(ProviderSettings settings);
  Result<Turn, ProviderError> StreamTurn(const TurnRequest& request, const StreamSink& sink,
                                         const std::atomic<bool>& cancel) override;
  std::string name() const override { return "gemini"; }

 private:
  ProviderSettings settings_;
  std::mutex mutex_;  // one turn at a time on the one connection
  HttpClient http_;
  WireCache wire_;  // the last request's contents, serialized
};

// The request body, as JSON text, and the path of the request (exposed for
// tests).
std::string GeminiRequestBody(const TurnRequest& request, WireCache* cache = nullptr);
std::string GeminiRequestPath(const std::string& model);

}  // namespace ikigai::providers
