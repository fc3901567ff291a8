#include "providers/anthropic_provider.h"

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

json AssistantContent(const Message& m) {
  json content = json::array();
  if (!m.text.empty()) content.push_back({{"type", "text"}, {"text", m.text}});
  for (const ToolCall& call : m.tool_calls) {
    json input = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
    if (!input.is_object()) input = json::object();  // the API wants an object
    content.push_back(
        {{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", std::move(input)}});
  }
  return content;
}

const json kCacheBreakpoint = {{"type", "ephemeral"}};

json TextBlock(const std::string& text) { return {{"type", "text"}, {"text", text}}; }

// The content of a user message as blocks, so that more can be added.
json& AsBlocks(json& content) {
  if (content.is_string()) content = json::array({TextBlock(content.get<std::string>())});
  return content;
}

json ResultBlocks(const Message& m) {
  json blocks = json::array();
  for (const ToolResult& r : m.tool_results) {
    blocks.push_back({{"type", "tool_result"}, {"tool_use_id", r.call_id}, {"content", r.content}});
  }
  return blocks;
}

// Whether a message is part of a user turn on the wire. Two in a row (a new
// prompt after a compaction, or after results) become one message of
// blocks, as the roles must alternate; an empty assistant turn between
// them (the API refuses empty content) is left out, so it joins them too.
bool UserSide(const Message& m) {
  return m.role != Role::kAssistant || (m.text.empty() && m.tool_calls.empty());
}

// One wire message from `group` (an assistant turn, or a run of user-side
// messages), with the prompt cache's breakpoint on its last block when it
// is the latest: the next request then reads all of it from the cache.
std::string GroupText(std::span<const Message> group, bool breakpoint) {
  json message;
  if (group.front().role == Role::kAssistant && !UserSide(group.front())) {
    message = {{"role", "assistant"}, {"content", AssistantContent(group.front())}};
  } else {
    json content = nullptr;
    for (const Message& m : group) {
      if (m.role == Role::kAssistant) continue;  // empty
      json part = m.role == Role::kUser ? json(m.text) : ResultBlocks(m);
      if (content.is_null()) {
        content = std::move(part);
      } else {
        json& blocks = AsBlocks(content);
        for (json& block : AsBlocks(part)) blocks.push_back(std::move(block));
      }
    }
    if (content.is_null()) return {};  // nothing but empty turns
    message = {{"role", "user"}, {"content", std::move(content)}};
  }
  if (breakpoint) {
    json& blocks = AsBlocks(message["content"]);
    if (!blocks.empty()) blocks.back()["cache_control"] = kCacheBreakpoint;
  }
  return Dump(message);
}

// The members of the "messages" array, each wire message reused from
// `cache` where its messages are unchanged.
const std::string& MessagesText(const TurnRequest& request, WireCache& cache) {
  const std::vector<Message>& all = request.messages;
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [begin, end)
  for (std::size_t i = 0; i < all.size();) {
    std::size_t end = i + 1;
    if (UserSide(all[i])) {
      while (end < all.size() && UserSide(all[end])) ++end;
    }
    groups.emplace_back(i, end);
    i = end;
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::span<const Message> group(all.data() + groups[g].first,
                                         groups[g].second - groups[g].first);
    const bool latest = g + 1 == groups.size();
    cache.Piece(g, group, latest ? 1 : 0, [&] { return GroupText(group, latest); });
  }
  cache.Keep(groups.size());
  return cache.Joined();
}

// Reads the events of one streamed answer into a Turn.
class Decoder final : public EventDecoder {
 public:
  Decoder(Turn& turn, const StreamSink& sink) : turn_(turn), sink_(sink) {}

  std::optional<ProviderError> OnEvent(const SseEvent& event) override {
    const json data = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
    const std::string name = event.type.empty() ? "message" : event.type;
    if (!data.is_object()) {
      return ProviderError{ErrorKind::kProtocol,
                           "malformed JSON in the '" + name + "' event: " + Excerpt(event.data)};
    }
    // The data's "type" is the event's name; a proxy that drops "event:" lines loses nothing.
    const std::string* data_type = StringField(Field(data, "type"));
    const std::string type = data_type ? *data_type : event.type;
    if (type == "message_start") {
      ReadUsage(Field(Field(data, "message"), "usage"));
    } else if (type == "content_block_start") {
      return BlockStart(data);
    } else if (type == "content_block_delta") {
      return BlockDelta(data);
    } else if (type == "content_block_stop") {
      BlockStop(data);
    } else if (type == "message_delta") {
      if (const std::string* reason = StringField(Field(Field(data, "delta"), "stop_reason"))) {
        turn_.finish_reason = *reason;
      }
      ReadUsage(Field(data, "usage"));  // the final counts
    } else if (type == "message_stop") {
      done_ = true;
    } else if (type == "error") {
      const json* error = Field(data, "error");
      const std::string* kind = StringField(Field(error, "type"));
      const std::string* message = StringField(Field(error, "message"));
      const bool busy = kind && (*kind == "overloaded_error" || *kind == "rate_limit_error");
      // api_error is the server's own failure; a refusal of the request
      // (invalid_request_error) would be refused again.
      const bool transient = busy || (kind && *kind == "api_error");
      std::string text = "the server reported an error in the stream";
      if (kind) text += " (" + *kind + ")";
      text += ": " + (message ? *message : Excerpt(event.data));
      if (!busy && SaysContextTooLong(text)) {
        return ProviderError{ErrorKind::kContextTooLong, std::move(text)};
      }
      return ProviderError{busy ? ErrorKind::kRateLimited : ErrorKind::kServer, std::move(text),
                           transient};
    }
    // "ping" and event types added later: nothing to do.
    return std::nullopt;
  }

  bool Emitted() const override { return emitted_; }
  void Reset() override {
    turn_ = Turn{};
    blocks_.clear();
    done_ = false;
  }

  bool Complete(bool) const override { return done_; }

  // Calls whose block never stopped (the stream ended with message_stop anyway).
  void Finish() {
    for (auto& [index, block] : blocks_) {
      if (block.is_tool && !block.stopped) Emit(block);
    }
  }

 private:
  struct Block {
    bool is_tool = false;
    bool stopped = false;
    std::size_t call = 0;  // index in turn_.tool_calls
  };

  std::optional<ProviderError> BlockStart(const json& data) {
    const long index = IntegerField(Field(data, "index")).value_or(-1);
    const json* block = Field(data, "content_block");
    const std::string* type = StringField(Field(block, "type"));
    if (type == nullptr) {
      return ProviderError{
          ErrorKind::kProtocol,
          "a 'content_block_start' event without a block type: " + Excerpt(data.dump())};
    }
    if (*type == "text") {
      blocks_[index] = Block{};
      if (const std::string* text = StringField(Field(block, "text")); text && !text->empty()) {
        AddText(*text);
      }
    } else if (*type == "tool_use") {
      ToolCall call;
      if (const std::string* id = StringField(Field(block, "id"))) call.id = *id;
      if (const std::string* name = StringField(Field(block, "name"))) call.name = *name;
      turn_.tool_calls.push_back(std::move(call));
      blocks_[index] = Block{true, false, turn_.tool_calls.size() - 1};
    }
    return std::nullopt;
  }

  std::optional<ProviderError> BlockDelta(const json& data) {
    const json* delta = Field(data, "delta");
    const std::string* type = StringField(Field(delta, "type"));
    if (type == nullptr) return std::nullopt;
    if (*type == "text_delta") {
      if (const std::string* text = StringField(Field(delta, "text"))) AddText(*text);
    } else if (*type == "input_json_delta") {
      const long index = IntegerField(Field(data, "index")).value_or(-1);
      auto it = blocks_.find(index);
      if (it == blocks_.end() || !it->second.is_tool) return std::nullopt;  // a server tool's input
      if (const std::string* part = StringField(Field(delta, "partial_json"))) {
        turn_.tool_calls[it->second.call].arguments += *part;
      }
    }
    return std::nullopt;
  }

  void BlockStop(const json& data) {
    const long index = IntegerField(Field(data, "index")).value_or(-1);
    auto it = blocks_.find(index);
    if (it == blocks_.end() || !it->second.is_tool || it->second.stopped) return;
    Emit(it->second);
  }

  void Emit(Block& block) {
    block.stopped = true;
    ToolCall& call = turn_.tool_calls[block.call];
    if (call.arguments.empty()) call.arguments = "{}";  // a call without parameters
    emitted_ = true;
    if (sink_.on_tool_call) sink_.on_tool_call(call);
  }

  // message_start has the input, message_delta the final counts (input
  // fields again in newer versions of the API): each present field wins.
  void ReadUsage(const json* usage) {
    if (auto n = IntegerField(Field(usage, "input_tokens"))) turn_.usage.input_tokens = *n;
    if (auto n = IntegerField(Field(usage, "output_tokens"))) turn_.usage.output_tokens = *n;
    if (auto n = IntegerField(Field(usage, "cache_read_input_tokens"))) {
      turn_.usage.cache_read_tokens = *n;
    }
    if (auto n = IntegerField(Field(usage, "cache_creation_input_tokens"))) {
      turn_.usage.cache_write_tokens = *n;
    }
  }

  void AddText(const std::string& text) {
    if (text.empty()) return;
    turn_.text += text;
    emitted_ = true;
    if (sink_.on_text) sink_.on_text(text);
  }

  Turn& turn_;
  const StreamSink& sink_;
  bool emitted_ = false;  // something reached the sink
  std::map<long, Block> blocks_;
  bool done_ = false;
};

}  // namespace

std::string AnthropicRequestBody(const TurnRequest& request, WireCache* cache) {
  json body = {{"model", request.model}, {"max_tokens", request.max_tokens}, {"stream", true}};
  // Prompt caching: breakpoints after the tools, after the system prompt
  // (which follows them in the cache's order), and on the latest message.
  if (!request.system.empty()) {
    json system = TextBlock(request.system);
    system["cache_control"] = kCacheBreakpoint;
    body["system"] = json::array({std::move(system)});
  }
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const ToolSpec& tool : request.tools) {
      json schema = tool.parameters.is_object()
                        ? tool.parameters
                        : json{{"type", "object"}, {"properties", json::object()}};
      tools.push_back({{"name", tool.name},
                       {"description", tool.description},
                       {"input_schema", std::move(schema)}});
    }
    tools.back()["cache_control"] = kCacheBreakpoint;
    body["tools"] = std::move(tools);
  }
  WireCache once;
  return WithArray(Dump(body), "messages", "",
                   MessagesText(request, cache != nullptr ? *cache : once));
}

AnthropicProvider::AnthropicProvider(ProviderSettings settings) : settings_(std::move(settings)) {
  if (settings_.base_url.empty()) settings_.base_url = kAnthropicDefaultBaseUrl;
  settings_.base_url = WithoutTrailingSlashes(settings_.base_url);
}

Result<Turn, ProviderError> AnthropicProvider::StreamTurn(const TurnRequest& request,
                                                          const StreamSink& sink,
                                                          const std::atomic<bool>& cancel) {
  const std::lock_guard lock(mutex_);
  if (settings_.api_key.empty()) return Err(MissingKey("ANTHROPIC_API_KEY"));
  const StreamCall call = StreamCallFor(
      settings_, settings_.base_url + "/v1/messages",
      {"x-api-key: " + settings_.api_key, std::string("anthropic-version: ") + kAnthropicVersion},
      AnthropicRequestBody(request, &wire_), "ANTHROPIC_API_KEY");
  Turn turn;
  Decoder decoder(turn, sink);
  auto streamed = RunStream(http_, call, decoder, sink.on_retry, cancel);
  if (!streamed) return Err(std::move(streamed.error()));
  decoder.Finish();
  return turn;
}

}  // namespace ikigai::providers
