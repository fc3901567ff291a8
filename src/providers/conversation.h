// The conversation as ikigai keeps it, independent of any provider's wire
// format: each provider adapter translates it to its API and back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ikigai::providers {

struct ToolCall {
  std::string id;  // the provider's call id, echoed with the result
  std::string name;
  std::string arguments;  // JSON text as the model produced it (may be invalid)
  bool operator==(const ToolCall&) const = default;
};

struct ToolResult {
  std::string call_id;
  std::string name;
  std::string content;  // the wrapper JSON the executor produced, as text
  bool operator==(const ToolResult&) const = default;
};

enum class Role { kUser, kAssistant, kToolResults };

struct Message {
  Role role = Role::kUser;
  std::string text;                      // user text, or the assistant's text
  std::vector<ToolCall> tool_calls;      // assistant only
  std::vector<ToolResult> tool_results;  // kToolResults only: the results of one turn, in order
  // Assistant only: the turn as its provider sent it, for a provider that
  // must get it back exactly ({"provider": "gemini", "parts": [...]}: Gemini
  // refuses a conversation whose thought signatures were dropped). Null for
  // the others; another provider ignores it.
  nlohmann::json replay = nullptr;
  bool operator==(const Message&) const = default;
};

// A tool as advertised to the model.
struct ToolSpec {
  std::string name;
  std::string description;
  nlohmann::json parameters;  // JSON Schema object
};

// Tokens of one request, or summed over several. Input read from or written
// to the provider's prompt cache is counted apart from plain input, never
// folded into it.
struct Usage {
  long input_tokens = 0;  // plain input
  long output_tokens = 0;
  long cache_read_tokens = 0;   // input served from the cache
  long cache_write_tokens = 0;  // input written to the cache (Anthropic)

  // Everything the request carried: what fills the context window.
  long TotalInput() const { return input_tokens + cache_read_tokens + cache_write_tokens; }
  Usage& operator+=(const Usage& other) {
    input_tokens += other.input_tokens;
    output_tokens += other.output_tokens;
    cache_read_tokens += other.cache_read_tokens;
    cache_write_tokens += other.cache_write_tokens;
    return *this;
  }
};

// A usage as JSON: {"input_tokens", "output_tokens", "cache_read_tokens",
// "cache_write_tokens"} (-p --output json, a subagent's answer).
inline nlohmann::ordered_json UsageJson(const Usage& usage) {
  return {{"input_tokens", usage.input_tokens},
          {"output_tokens", usage.output_tokens},
          {"cache_read_tokens", usage.cache_read_tokens},
          {"cache_write_tokens", usage.cache_write_tokens}};
}

// And back: a missing or non-integer count is 0.
inline Usage UsageFromJson(const nlohmann::json& j) {
  const auto count = [&j](const char* key) -> long {
    if (!j.is_object()) return 0;
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<long>() : 0;
  };
  return {count("input_tokens"), count("output_tokens"), count("cache_read_tokens"),
          count("cache_write_tokens")};
}

}  // namespace ikigai::providers
