// Checking a --schema answer and bringing it to one shape.
//
// Two shapes are in use (DECISIONS §2). JSON Schema:
//   "parameters": {"type": "object", "properties": {...}, "required": [...]}
// and the older shape of seeds/001, where "parameters" maps each parameter
// straight to its definition, and a definition may say "required": true:
//   "parameters": {"path": {"type": "string", "required": true}}
// Telling them apart: "parameters" is JSON Schema when its "type" is a
// string, or when it has a "properties" object that is not itself a
// parameter's definition (a definition has a string "type" or
// "description"); anything else is the older shape, whose parameters may
// then be called "type" or "properties" like any other. Both end as JSON
// Schema; a boolean "required" on a property (tolerated in either shape)
// moves into the "required" array.
#include "protocol/schema.h"

#include <algorithm>
#include <cctype>

#include "base/format.h"
#include "protocol/parse_json.h"

namespace ikigai::protocol {
namespace {

using Json = nlohmann::json;

std::string Quoted(const std::string& s) { return Json(s).dump(); }

std::string Got(const Json& value) { return std::string(", got ") + value.type_name(); }

bool IsParameterDefinition(const Json& value) {
  if (!value.is_object()) return false;
  auto type = value.find("type");
  auto description = value.find("description");
  return (type != value.end() && type->is_string()) ||
         (description != value.end() && description->is_string());
}

bool IsJsonSchemaShape(const Json& parameters) {
  if (auto type = parameters.find("type"); type != parameters.end()) return type->is_string();
  auto properties = parameters.find("properties");
  return properties != parameters.end() && properties->is_object() &&
         !IsParameterDefinition(*properties);
}

Result<Json, std::string> NormalizeParameters(const Json& parameters) {
  if (!parameters.is_object()) return Err("parameters must be an object" + Got(parameters));

  Json out = Json::object();
  Json properties = Json::object();
  Json required_in = Json::array();
  std::string where;  // how an error names a property: where + name
  if (IsJsonSchemaShape(parameters)) {
    out = parameters;  // other keywords (additionalProperties, $schema, ...) stay
    if (out.contains("type") && out["type"] != "object") {
      return Err("parameters.type must be \"object\", got " + out["type"].dump());
    }
    if (auto it = out.find("properties"); it != out.end()) {
      if (!it->is_object()) return Err("parameters.properties must be an object" + Got(*it));
      properties = *it;
    }
    if (auto it = out.find("required"); it != out.end()) required_in = *it;
    where = "parameters.properties.";
  } else {
    for (const auto& [key, value] : parameters.items()) {
      if (key == "required" && value.is_array()) {
        required_in = value;  // a JSON Schema habit mixed into the older shape
      } else {
        properties[key] = value;
      }
    }
    where = "parameters.";
  }

  std::vector<std::string> required;
  if (!required_in.is_array()) return Err("parameters.required must be an array of property names");
  for (const Json& name : required_in) {
    if (!name.is_string()) return Err("parameters.required must be an array of property names");
    required.push_back(name.get<std::string>());
  }
  for (auto& [name, definition] : properties.items()) {
    if (!definition.is_object()) {
      return Err(where + name + " must be an object (the parameter's definition)" +
                 Got(definition));
    }
    auto flag = definition.find("required");
    if (flag == definition.end() || flag->is_array()) continue;  // an array: a nested object's own
    if (!flag->is_boolean()) return Err(where + name + ".required must be true or false");
    if (flag->get<bool>()) required.push_back(name);
    definition.erase(flag);
  }
  std::vector<std::string> unique;
  for (const std::string& name : required) {
    if (!properties.contains(name)) {
      return Err("parameters.required names " + Quoted(name) +
                 ", which is not a declared parameter");
    }
    if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
  }

  out["type"] = "object";
  out["properties"] = std::move(properties);
  out["required"] = std::move(unique);
  return out;
}

Result<std::string, std::string> RequiredString(const Json& schema, const char* key) {
  auto it = schema.find(key);
  if (it == schema.end()) return Err("missing " + Quoted(key));
  if (!it->is_string()) return Err(std::string(key) + " must be a string" + Got(*it));
  return it->get<std::string>();
}

}  // namespace

Result<ToolSchema, std::string> SchemaFromJson(Json value) {
  if (!value.is_object()) return Err("the schema must be a JSON object" + Got(value));
  ToolSchema schema;

  auto name = RequiredString(value, "name");
  if (!name) return Err(std::move(name).error());
  if (name->empty()) return Err(std::string("name must not be empty"));
  schema.name = std::move(*name);

  auto description = RequiredString(value, "description");
  if (!description) return Err(std::move(description).error());
  schema.description = std::move(*description);

  auto parameters = value.find("parameters");
  if (parameters == value.end()) return Err(std::string("missing \"parameters\""));
  auto normalized = NormalizeParameters(*parameters);
  if (!normalized) return Err(std::move(normalized).error());
  schema.parameters = std::move(*normalized);

  if (auto it = value.find("returns"); it != value.end()) schema.returns = *it;
  if (auto it = value.find("annotations"); it != value.end() && !it->is_null()) {
    if (!it->is_object()) return Err("annotations must be an object" + Got(*it));
    schema.annotations = *it;
  }
  if (auto it = value.find("host_api"); it != value.end()) {
    if (!it->is_boolean()) return Err("host_api must be true or false" + Got(*it));
    schema.host_api = it->get<bool>();
  }
  if (auto it = value.find("env"); it != value.end() && !it->is_null()) {
    constexpr std::size_t kMaxEnv = 32;
    if (!it->is_array() || it->size() > kMaxEnv) {
      return Err("env must be an array of at most " + std::to_string(kMaxEnv) + " variable names" +
                 Got(*it));
    }
    for (const auto& variable : *it) {
      if (!variable.is_string() || !IsVariableName(variable.get<std::string>())) {
        return Err("env must hold variable names (letters, digits and _)" + Got(variable));
      }
      schema.env.push_back(variable.get<std::string>());
    }
  }
  schema.raw = std::move(value);
  return schema;
}

bool IsVariableName(std::string_view name) {
  if (name.empty() || name.size() > 128 || std::isdigit(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

Result<ToolSchema, std::string> ParseSchema(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return Err(std::string("invalid JSON: nothing was printed"));
  auto value = ParseJson(trimmed);
  if (!value) return Err("invalid JSON: " + value.error());
  auto schema = SchemaFromJson(std::move(*value));
  if (schema) schema->text = std::string(trimmed);
  return schema;
}

}  // namespace ikigai::protocol
