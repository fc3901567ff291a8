#include "providers/gemini_provider.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <utility>

#include "providers/json_fields.h"
#include "providers/stream_request.h"
#include "providers/wire_cache.h"

namespace ikigai::providers {
namespace {

using nlohmann::json;

constexpr const char* kKeyVariable = "GEMINI_API_KEY";

std::string WithoutTrailingSlashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The model as a path segment: "models/gemini-2.5-flash" (the API's own
// resource name) works as well as the bare name, and a character a URL
// cannot carry as it is gets percent-encoded rather than breaking the path.
std::string ModelSegment(std::string_view model) {
  if (model.starts_with("models/")) model.remove_prefix(std::string_view("models/").size());
  std::string out;
  for (const char c : model) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", byte);
      out += escaped;
    }
  }
  return out;
}

// The parts of an assistant message kept as Gemini sent them; nullptr when
// it has none (another provider's turn, or a log from before replays).
const json* ReplayParts(const Message& m) {
  const std::string* provider = StringField(Field(m.replay, "provider"));
  const json* parts = Field(m.replay, "parts");
  if (provider == nullptr || *provider != "gemini") return nullptr;
  if (parts == nullptr || !parts->is_array() || parts->empty()) return nullptr;
  return parts;
}

json TextPart(const std::string& text) { return json{{"text", text}}; }

const char* WireRole(const Message& m) { return m.role == Role::kAssistant ? "model" : "user"; }

// Whether a message gives no part at all (an empty turn): it is left out,
// and the contents on either side of it may then be one.
bool SaysNothing(const Message& m) {
  switch (m.role) {
    case Role::kUser:
      return false;
    case Role::kAssistant:
      return ReplayParts(m) == nullptr && m.text.empty() && m.tool_calls.empty();
    case Role::kToolResults:
      return m.tool_results.empty();
  }
  return true;
}

// Calls the model gave no id (Gemini 2.x): ikigai named them, the API
// never heard those names, so their results go back without one.
void AddUnnamedCalls(const Message& m, std::set<std::string>& unnamed) {
  const json* parts = ReplayParts(m);
  if (parts == nullptr) return;
  std::size_t call = 0;
  for (const json& part : *parts) {
    const json* function_call = Field(part, "functionCall");
    if (function_call == nullptr) continue;
    if (StringField(Field(function_call, "id")) == nullptr && call < m.tool_calls.size()) {
      unnamed.insert(m.tool_calls[call].id);
    }
    ++call;
  }
}

void AddParts(const Message& m, const std::set<std::string>& unnamed, json& parts) {
  switch (m.role) {
    case Role::kUser:
      parts.push_back(TextPart(m.text));
      return;
    case Role::kAssistant:
      if (const json* replay = ReplayParts(m)) {
        // Exactly as received: thought signatures included.
        for (const json& part : *replay) parts.push_back(part);
        return;
      }
      if (!m.text.empty()) parts.push_back(TextPart(m.text));
      for (const ToolCall& call : m.tool_calls) {
        json args = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
        if (!args.is_object()) args = json::object();  // the API wants an object
        json function_call = {{"name", call.name}, {"args", std::move(args)}};
        if (!call.id.empty()) function_call["id"] = call.id;
        parts.push_back({{"functionCall", std::move(function_call)}});
      }
      return;
    case Role::kToolResults:
      for (const ToolResult& r : m.tool_results) {
        // The response must be an object: the wrapper is one; anything
        // else is carried as text.
        json response = json::parse(r.content, nullptr, /*allow_exceptions=*/false);
        if (!response.is_object()) response = json{{"content", r.content}};
        json function_response = {{"name", r.name}, {"response", std::move(response)}};
        if (!r.call_id.empty() && !unnamed.contains(r.call_id)) function_response["id"] = r.call_id;
        parts.push_back({{"functionResponse", std::move(function_response)}});
      }
      return;
  }
}

// The members of the "contents" array, one content per run of messages of
// one role (the API refuses two contents of one role in a row in some
// versions, and they occur: a prompt after the results of a cancelled
// turn, a turn left out). Each content is reused from `cache` while the
// messages it is made of, and the one said before them (whose calls its
// results answer), are unchanged.
const std::string& ContentsText(const TurnRequest& request, WireCache& cache) {
  const std::vector<Message>& all = request.messages;
  std::size_t pieces = 0;
  for (std::size_t begin = 0; begin < all.size();) {
    if (SaysNothing(all[begin])) {
      ++begin;
      continue;
    }
    const std::string_view role = WireRole(all[begin]);
    std::size_t end = begin + 1;
    while (end < all.size() && (SaysNothing(all[end]) || WireRole(all[end]) == role)) ++end;
    std::size_t from = begin;  // back to the message before, past empty turns
    while (from > 0 && SaysNothing(all[from - 1])) --from;
    if (from > 0) --from;
    const std::span<const Message> messages(all.data() + from, end - from);
    cache.Piece(pieces++, messages, 0, [&]() -> std::string {
      std::set<std::string> unnamed;
      for (const Message& m : messages) AddUnnamedCalls(m, unnamed);
      json parts = json::array();
      for (std::size_t i = begin; i < end; ++i) AddParts(all[i], unnamed, parts);
      return Dump({{"role", std::string(role)}, {"parts", std::move(parts)}});
    });
    begin = end;
  }
  cache.Keep(pieces);
  return cache.Joined();
}

// A part that is only text (or only thought text): consecutive ones are
// the pieces of one stream and are kept as one, which is what the API
// itself answers without streaming. Anything else (a thoughtSignature, a
// call) is kept as it came.
bool PlainText(const json& part) {
  if (StringField(Field(part, "text")) == nullptr) return false;
  if (part.size() == 1) return true;
  const json* thought = Field(part, "thought");
  return part.size() == 2 && thought != nullptr && thought->is_boolean() && thought->get<bool>();
}

// What a blocking finishReason means, for the message.
std::string FinishReasonMeaning(const std::string& reason) {
  if (reason == "SAFETY" || reason == "IMAGE_SAFETY") return "the safety filters flagged it";
  if (reason == "RECITATION") return "it would recite protected material";
  if (reason == "BLOCKLIST") return "it holds a blocked term";
  if (reason == "PROHIBITED_CONTENT") return "it may hold prohibited content";
  if (reason == "SPII") return "it may hold sensitive personal information";
  if (reason == "LANGUAGE") return "it is in a language the model does not support";
  if (reason == "MALFORMED_FUNCTION_CALL") return "the model wrote a function call that is invalid";
  if (reason == "UNEXPECTED_TOOL_CALL") return "the model called a tool that was not offered";
  return "";
}

// Reads the chunks of one streamed answer into a Turn.
class Decoder final : public EventDecoder {
 public:
  // `earlier_calls`: how many calls the conversation holds, so that a name
  // ikigai gives a call stays unique in it.
  Decoder(Turn& turn, const StreamSink& sink, std::size_t earlier_calls)
      : turn_(turn), sink_(sink), earlier_calls_(earlier_calls) {}

  std::optional<ProviderError> OnEvent(const SseEvent& event) override {
    const json chunk = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
    if (!chunk.is_object()) {
      return ProviderError{
          ErrorKind::kProtocol,
          "malformed JSON in a streamGenerateContent event: " + Excerpt(event.data)};
    }
    if (const json* error = Field(chunk, "error")) return StreamError(*error, event.data);
    ReadUsage(Field(chunk, "usageMetadata"));  // every chunk has the counts so far
    const json* candidates = Field(chunk, "candidates");
    if (candidates == nullptr || !candidates->is_array() || candidates->empty()) {
      // The prompt itself was refused: no candidate at all.
      const json* feedback = Field(chunk, "promptFeedback");
      if (const std::string* reason = StringField(Field(feedback, "blockReason"))) {
        return ProviderError{ErrorKind::kServer, "Gemini refused the prompt (blockReason " +
                                                     *reason + "); change the request"};
      }
      return std::nullopt;
    }
    const json& candidate = candidates->front();
    if (const json* parts = Field(Field(candidate, "content"), "parts");
        parts != nullptr && parts->is_array()) {
      for (const json& part : *parts) AddPart(part);
    }
    if (const std::string* reason = StringField(Field(candidate, "finishReason"))) {
      return FinishReason(*reason, candidate);
    }
    return std::nullopt;
  }

  bool Emitted() const override { return emitted_; }
  void Reset() override {
    turn_ = Turn{};
    parts_ = json::array();
    done_ = false;
  }
  // The finishReason is the end: nothing marks the end of the body besides it.
  bool Complete(bool) const override { return done_; }

  // The turn as received, for its replay.
  void Finish() {
    if (!parts_.empty()) turn_.replay = {{"provider", "gemini"}, {"parts", parts_}};
  }

 private:
  void AddPart(const json& part) {
    if (!part.is_object()) return;
    Keep(part);
    if (const json* function_call = Field(part, "functionCall")) {
      ToolCall call;
      const std::string* id = StringField(Field(function_call, "id"));
      call.id = id != nullptr && !id->empty()
                    ? *id
                    : "gemini_call_" + std::to_string(earlier_calls_ + turn_.tool_calls.size());
      if (const std::string* name = StringField(Field(function_call, "name"))) call.name = *name;
      const json* args = Field(function_call, "args");
      call.arguments = args != nullptr && args->is_object()
                           ? args->dump(-1, ' ', false, json::error_handler_t::replace)
                           : "{}";
      turn_.tool_calls.push_back(std::move(call));
      emitted_ = true;
      if (sink_.on_tool_call) sink_.on_tool_call(turn_.tool_calls.back());
      return;
    }
    const json* thought = Field(part, "thought");
    if (thought != nullptr && thought->is_boolean() && thought->get<bool>()) return;  // not shown
    if (const std::string* text = StringField(Field(part, "text")); text && !text->empty()) {
      turn_.text += *text;
      emitted_ = true;
      if (sink_.on_text) sink_.on_text(*text);
    }
  }

  void Keep(const json& part) {
    if (part == json{{"text", ""}}) return;  // says nothing
    if (!parts_.empty() && PlainText(part) && PlainText(parts_.back()) &&
        part.size() == parts_.back().size()) {
      parts_.back()["text"] =
          parts_.back()["text"].get<std::string>() + part["text"].get<std::string>();
      return;
    }
    parts_.push_back(part);
  }

  std::optional<ProviderError> FinishReason(const std::string& reason, const json& candidate) {
    turn_.finish_reason = reason;
    // aimock ends a turn of calls with FUNCTION_CALL; the API says STOP.
    if (reason == "STOP" || reason == "FUNCTION_CALL" || reason == "MAX_TOKENS") {
      done_ = true;
      return std::nullopt;
    }
    std::string message = "Gemini stopped the answer (finishReason " + reason;
    if (const std::string meaning = FinishReasonMeaning(reason); !meaning.empty())
      message += ": " + meaning;
    message += ")";
    if (const std::string* detail = StringField(Field(candidate, "finishMessage"))) {
      message += ": " + *detail;
    }
    // A call that did not parse may come out right the next time; a refusal
    // would be refused again.
    return ProviderError{ErrorKind::kServer, std::move(message),
                         reason == "MALFORMED_FUNCTION_CALL"};
  }

  std::optional<ProviderError> StreamError(const json& error, const std::string& data) {
    const std::string* status = StringField(Field(error, "status"));
    const std::string* message = StringField(Field(error, "message"));
    const long code = IntegerField(Field(error, "code")).value_or(0);
    std::string text = "the server reported an error in the stream";
    if (status) text += " (" + *status + ")";
    text += ": " + (message ? *message : Excerpt(data));
    const bool busy = (status && *status == "RESOURCE_EXHAUSTED") || code == 429;
    if (!busy && SaysContextTooLong(text)) {
      return ProviderError{ErrorKind::kContextTooLong, std::move(text)};
    }
    // The server's own failure may pass; a refusal of the request would not.
    const bool own_failure = (status && (*status == "INTERNAL" || *status == "UNAVAILABLE")) ||
                             code == 500 || code == 503;
    return ProviderError{busy ? ErrorKind::kRateLimited : ErrorKind::kServer, std::move(text),
                         busy || own_failure};
  }

  // promptTokenCount includes what the cache served: counted apart here.
  void ReadUsage(const json* usage) {
    if (usage == nullptr) return;
    const long cached = IntegerField(Field(usage, "cachedContentTokenCount")).value_or(0);
    if (auto prompt = IntegerField(Field(usage, "promptTokenCount"))) {
      turn_.usage.input_tokens = std::max(0L, *prompt - cached);
      turn_.usage.cache_read_tokens = cached;
    }
    const auto candidates = IntegerField(Field(usage, "candidatesTokenCount"));
    const auto thoughts = IntegerField(Field(usage, "thoughtsTokenCount"));
    if (candidates || thoughts)
      turn_.usage.output_tokens = candidates.value_or(0) + thoughts.value_or(0);
  }

  Turn& turn_;
  const StreamSink& sink_;
  const std::size_t earlier_calls_;
  bool emitted_ = false;  // something reached the sink
  json parts_ = json::array();
  bool done_ = false;
};

// Gemini answers a wrong key with 400 INVALID_ARGUMENT (API_KEY_INVALID),
// not 401: said the way the other providers' refusals of a key are.
ProviderError KeyRefused(ProviderError error) {
  constexpr std::string_view kRefused = "the server refused the request (";
  const std::string& m = error.message;
  const bool about_key = m.find("API key not valid") != std::string::npos ||
                         m.find("API_KEY_INVALID") != std::string::npos ||
                         m.find("API key expired") != std::string::npos;
  if (error.kind != ErrorKind::kServer || !m.starts_with(kRefused) || !about_key) return error;
  return {ErrorKind::kAuth, "the server refused the API key (" + m.substr(kRefused.size()) +
                                "; set " + kKeyVariable + " to a valid key"};
}

}  // namespace

std::string GeminiRequestPath(const std::string& model) {
  return "/v1beta/models/" + ModelSegment(model) + ":streamGenerateContent?alt=sse";
}

std::string GeminiRequestBody(const TurnRequest& request, WireCache* cache) {
  json body = {{"generationConfig", {{"maxOutputTokens", request.max_tokens}}}};
  if (!request.system.empty()) {
    body["systemInstruction"] = {{"parts", json::array({TextPart(request.system)})}};
  }
  if (!request.tools.empty()) {
    json declarations = json::array();
    for (const ToolSpec& tool : request.tools) {
      json schema = tool.parameters.is_object()
                        ? tool.parameters
                        : json{{"type", "object"}, {"properties", json::object()}};
      declarations.push_back({{"name", tool.name},
                              {"description", tool.description},
                              {"parametersJsonSchema", std::move(schema)}});
    }
    body["tools"] = json::array({json{{"functionDeclarations", std::move(declarations)}}});
  }
  WireCache once;
  return WithArray(Dump(body), "contents", "", ContentsText(request, cache ? *cache : once));
}

GeminiProvider::GeminiProvider(ProviderSettings settings) : settings_(std::move(settings)) {
  if (settings_.base_url.empty()) settings_.base_url = kGeminiDefaultBaseUrl;
  settings_.base_url = WithoutTrailingSlashes(settings_.base_url);
}

Result<Turn, ProviderError> GeminiProvider::StreamTurn(const TurnRequest& request,
                                                       const StreamSink& sink,
                                                       const std::atomic<bool>& cancel) {
  const std::lock_guard lock(mutex_);
  if (settings_.api_key.empty()) return Err(MissingKey(kKeyVariable));
  const StreamCall call = StreamCallFor(
      settings_, settings_.base_url + GeminiRequestPath(request.model),
      {"x-goog-api-key: " + settings_.api_key}, GeminiRequestBody(request, &wire_), kKeyVariable);
  std::size_t earlier_calls = 0;
  for (const Message& m : request.messages) earlier_calls += m.tool_calls.size();
  Turn turn;
  Decoder decoder(turn, sink, earlier_calls);
  auto streamed = RunStream(http_, call, decoder, sink.on_retry, cancel);
  if (!streamed) return Err(KeyRefused(std::move(streamed.error())));
  decoder.Finish();
  return turn;
}

}  // namespace ikigai::providers
