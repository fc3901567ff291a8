#include "providers/openai_provider.h"

#include <algorithm>
#include <map>
#include <utility>

#include "providers/json_fields.h"
#include "providers/stream_request.h"
#include "providers/wire_cache.h"

namespace ikigai::providers {
namespace {

using nlohmann::json;

std::string WithoutTrailingSlashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

json ToolCallsJson(const std::vector<ToolCall>& calls) {
  json out = json::array();
  for (const ToolCall& call : calls) {
    out.push_back({{"id", call.id},
                   {"type", "function"},
                   {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
  }
  return out;
}

// One message's wire form: the JSON text of one message, or of several
// separated by commas (a turn's results are one "tool" message each).
std::string MessageText(const Message& m) {
  switch (m.role) {
    case Role::kUser:
      return Dump({{"role", "user"}, {"content", m.text}});
    case Role::kAssistant: {
      json message = {{"role", "assistant"}};
      // With tool calls and no text, content is null, as OpenAI itself sends it.
      message["content"] = m.text.empty() && !m.tool_calls.empty() ? json(nullptr) : json(m.text);
      if (!m.tool_calls.empty()) message["tool_calls"] = ToolCallsJson(m.tool_calls);
      return Dump(message);
    }
    case Role::kToolResults: {
      std::string text;
      for (const ToolResult& r : m.tool_results) {
        if (!text.empty()) text += ',';
        text += Dump({{"role", "tool"}, {"tool_call_id", r.call_id}, {"content", r.content}});
      }
      return text;
    }
  }
  return {};
}

// The messages after the system prompt, each message's piece reused from
// `cache` where unchanged: the members of the "messages" array.
const std::string& MessagesText(const TurnRequest& request, WireCache& cache) {
  for (std::size_t i = 0; i < request.messages.size(); ++i) {
    const Message& m = request.messages[i];
    cache.Piece(i, std::span(&m, 1), 0, [&m] { return MessageText(m); });
  }
  cache.Keep(request.messages.size());
  return cache.Joined();
}

// Reads the chunks of one streamed answer into a Turn.
class Decoder final : public EventDecoder {
 public:
  Decoder(Turn& turn, const StreamSink& sink) : turn_(turn), sink_(sink) {}

  std::optional<ProviderError> OnEvent(const SseEvent& event) override {
    if (event.data == "[DONE]") {
      done_ = true;
      return std::nullopt;
    }
    const json chunk = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
    if (!chunk.is_object()) {
      return ProviderError{
          ErrorKind::kProtocol,
          "malformed JSON in a chat.completion.chunk event: " + Excerpt(event.data)};
    }
    if (const json* error = Field(chunk, "error")) {  // some servers report failures in the stream
      const std::string* message = StringField(Field(error, "message"));
      const std::string* type = StringField(Field(error, "type"));
      // The server's own failure may pass; a refusal of the request would not.
      const bool transient = type && (*type == "server_error" || *type == "internal_error");
      if (SaysContextTooLong(error->dump())) {
        return ProviderError{ErrorKind::kContextTooLong,
                             "the server reported an error in the stream: " +
                                 (message ? *message : Excerpt(error->dump()))};
      }
      return ProviderError{ErrorKind::kServer,
                           "the server reported an error in the stream: " +
                               (message ? *message : Excerpt(error->dump())),
                           transient};
    }
    if (const json* usage = Field(chunk, "usage")) {
      // prompt_tokens includes what the cache served: counted apart here.
      const long cached =
          IntegerField(Field(Field(usage, "prompt_tokens_details"), "cached_tokens")).value_or(0);
      if (auto n = IntegerField(Field(usage, "prompt_tokens"))) {
        turn_.usage.input_tokens = std::max(0L, *n - cached);
        turn_.usage.cache_read_tokens = cached;
      }
      if (auto n = IntegerField(Field(usage, "completion_tokens"))) turn_.usage.output_tokens = *n;
    }
    const json* choices = Field(chunk, "choices");
    if (choices == nullptr || !choices->is_array() || choices->empty()) return std::nullopt;
    const json& choice = choices->front();
    if (const std::string* reason = StringField(Field(choice, "finish_reason"))) {
      turn_.finish_reason = *reason;
    }
    const json* delta = Field(choice, "delta");
    if (const std::string* text = StringField(Field(delta, "content")); text && !text->empty()) {
      turn_.text += *text;
      emitted_ = true;
      if (sink_.on_text) sink_.on_text(*text);
    }
    if (const json* calls = Field(delta, "tool_calls"); calls && calls->is_array()) {
      for (const json& fragment : *calls) AddFragment(fragment);
    }
    return std::nullopt;
  }

  bool Emitted() const override { return emitted_; }
  void Reset() override {
    turn_ = Turn{};
    calls_.clear();
    done_ = false;
  }

  // [DONE] is the terminal event; a server that ends the body properly after
  // a finish_reason but without [DONE] is forgiven.
  bool Complete(bool clean_end) const override {
    return done_ || (clean_end && !turn_.finish_reason.empty());
  }

  // Hands the assembled calls over, in index order.
  void Finish() {
    for (auto& [index, call] : calls_) {
      if (call.id.empty()) call.id = "call_" + std::to_string(index);  // some local servers omit it
      turn_.tool_calls.push_back(std::move(call));
    }
    calls_.clear();
    emitted_ = emitted_ || !turn_.tool_calls.empty();
    if (sink_.on_tool_call) {
      for (const ToolCall& call : turn_.tool_calls) sink_.on_tool_call(call);
    }
  }

 private:
  void AddFragment(const json& fragment) {
    // Without an index (some servers send one call that way), it is call 0.
    const long index = IntegerField(Field(fragment, "index")).value_or(0);
    ToolCall& call = calls_[index];
    if (const std::string* id = StringField(Field(fragment, "id")); id && !id->empty())
      call.id = *id;
    const json* function = Field(fragment, "function");
    if (const std::string* name = StringField(Field(function, "name")); name && !name->empty()) {
      call.name = *name;
    }
    if (const std::string* args = StringField(Field(function, "arguments")))
      call.arguments += *args;
  }

  Turn& turn_;
  const StreamSink& sink_;
  bool emitted_ = false;  // something reached the sink
  std::map<long, ToolCall> calls_;
  bool done_ = false;
};

}  // namespace

bool IsReasoningModel(std::string_view model) {
  if (const auto slash = model.rfind('/'); slash != std::string_view::npos) {
    model.remove_prefix(slash + 1);  // "openai/o3" through a router
  }
  if (model.starts_with("gpt-5")) return true;
  // o1, o3, o4-mini, o3-pro-2025-06-10: "o", a digit, then the end or "-".
  return model.size() >= 2 && model[0] == 'o' && model[1] >= '1' && model[1] <= '9' &&
         (model.size() == 2 || model[2] == '-');
}

std::string OpenAiRequestBody(const TurnRequest& request, WireCache* cache) {
  json body = {
      {"model", request.model}, {"stream", true}, {"stream_options", {{"include_usage", true}}}};
  // Reasoning models refuse max_tokens; their limit covers the reasoning too.
  if (IsReasoningModel(request.model)) {
    body["max_completion_tokens"] = request.max_tokens;
    if (!request.reasoning_effort.empty()) body["reasoning_effort"] = request.reasoning_effort;
  } else {
    body["max_tokens"] = request.max_tokens;
  }
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const ToolSpec& tool : request.tools) {
      json parameters = tool.parameters.is_object()
                            ? tool.parameters
                            : json{{"type", "object"}, {"properties", json::object()}};
      tools.push_back({{"type", "function"},
                       {"function",
                        {{"name", tool.name},
                         {"description", tool.description},
                         {"parameters", std::move(parameters)}}}});
    }
    body["tools"] = std::move(tools);
  }
  const std::string system =
      request.system.empty() ? "" : Dump({{"role", "system"}, {"content", request.system}});
  WireCache once;
  return WithArray(Dump(body), "messages", system,
                   MessagesText(request, cache != nullptr ? *cache : once));
}

OpenAiProvider::OpenAiProvider(ProviderSettings settings) : settings_(std::move(settings)) {
  if (settings_.base_url.empty()) settings_.base_url = kOpenAiDefaultBaseUrl;
  settings_.base_url = WithoutTrailingSlashes(settings_.base_url);
}

Result<Turn, ProviderError> OpenAiProvider::StreamTurn(const TurnRequest& request,
                                                       const StreamSink& sink,
                                                       const std::atomic<bool>& cancel) {
  const std::lock_guard lock(mutex_);
  if (settings_.api_key.empty()) {
    return Err(
        MissingKey("OPENAI_API_KEY", "any value will do for a local server that needs none"));
  }
  const StreamCall call = StreamCallFor(settings_, settings_.base_url + "/chat/completions",
                                        {"Authorization: Bearer " + settings_.api_key},
                                        OpenAiRequestBody(request, &wire_), "OPENAI_API_KEY");
  Turn turn;
  Decoder decoder(turn, sink);
  auto streamed = RunStream(http_, call, decoder, sink.on_retry, cancel);
  if (!streamed) return Err(std::move(streamed.error()));
  decoder.Finish();
  return turn;
}

}  // namespace ikigai::providers
