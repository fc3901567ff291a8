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
};

struct ToolResult {
  std::string call_id;
  std::string name;
  std::string content;  // the wrapper JSON the executor produced, as text
};

enum class Role { kUser, kAssistant, kToolResults };

struct Message {
  Role role = Role::kUser;
  std::string text;                      // user text, or the assistant's text
  std::vector<ToolCall> tool_calls;      // assistant only
  std::vector<ToolResult> tool_results;  // kToolResults only: the results of one turn, in order
};

// A tool as advertised to the model.
struct ToolSpec {
  std::string name;
  std::string description;
  nlohmann::json parameters;  // JSON Schema object
};

struct Usage {
  long input_tokens = 0;
  long output_tokens = 0;
};

}  // namespace ikigai::providers
