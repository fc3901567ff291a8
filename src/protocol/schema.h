// A tool's --schema answer, checked and normalized (DECISIONS §2).
//
// Accepted: {"name", "description", "parameters"} with "parameters" a JSON
// Schema object (type "object", "properties" an object, "required" an array
// of strings), or the older shape of seeds/001 where each property carries
// "required": true, which is turned into a JSON Schema. "returns" and
// "annotations" are kept; "host_api" (a boolean) asks for the host channel;
// "env" (variable names) names the secrets the tool needs passed to it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace ikigai::protocol {

struct ToolSchema {
  std::string name;  // the schema's own "name"
  std::string description;
  nlohmann::json parameters;   // always {"type": "object", "properties": {...}, "required": [...]}
  nlohmann::json returns;      // null if absent
  nlohmann::json annotations;  // null if absent (else an object)
  bool host_api = false;       // "host_api": the tool gets the host channel
  std::vector<std::string> env;  // "env": secret variables it needs (never a provider's key)
  nlohmann::json raw;            // the whole answer as printed
  std::string text;  // the answer's text, surrounding whitespace removed (key order kept)
};

// Errors say what is wrong ("parameters.properties must be an object").
// Text that is not JSON: "invalid JSON: parse error at line 1, column 2: ...".
Result<ToolSchema, std::string> ParseSchema(std::string_view text);

// A name an environment variable may have: letters, digits and _, not
// starting with a digit.
bool IsVariableName(std::string_view name);

// The same checks on an already parsed answer (`text` is left empty).
Result<ToolSchema, std::string> SchemaFromJson(nlohmann::json value);

}  // namespace ikigai::protocol
