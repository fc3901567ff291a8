// Schema normalization (src/protocol/schema.h): any --schema answer is
// accepted in the one normalized shape or refused with a message, and
// normalizing a normalized answer changes nothing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "protocol/schema.h"

using ikigai::protocol::ParseSchema;
using ikigai::protocol::SchemaFromJson;
using ikigai::protocol::ToolSchema;

namespace {

void CheckNormalized(const ToolSchema& schema) {
  FUZZ_CHECK(!schema.name.empty());
  const nlohmann::json& parameters = schema.parameters;
  FUZZ_CHECK(parameters.is_object());
  FUZZ_CHECK(parameters.value("type", nlohmann::json()) == "object");
  const auto properties = parameters.find("properties");
  FUZZ_CHECK(properties != parameters.end() && properties->is_object());
  for (const auto& [name, definition] : properties->items()) {
    FUZZ_CHECK(definition.is_object());
    const auto flag = definition.find("required");
    FUZZ_CHECK(flag == definition.end() || flag->is_array());  // booleans moved out
  }
  const auto required = parameters.find("required");
  FUZZ_CHECK(required != parameters.end() && required->is_array());
  std::vector<std::string> seen;
  for (const nlohmann::json& name : *required) {
    FUZZ_CHECK(name.is_string());
    FUZZ_CHECK(properties->contains(name.get<std::string>()));
    FUZZ_CHECK(std::find(seen.begin(), seen.end(), name.get<std::string>()) == seen.end());
    seen.push_back(name.get<std::string>());
  }
  FUZZ_CHECK(schema.annotations.is_null() || schema.annotations.is_object());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ikigai::fuzz::AsText(data, size);
  auto schema = ParseSchema(text);
  if (!schema) {
    FUZZ_CHECK(!schema.error().empty());
    return 0;
  }
  CheckNormalized(*schema);
  FUZZ_CHECK(schema->text.size() <= size);
  FUZZ_CHECK(text.find(schema->text) != std::string_view::npos);

  // The answer's own text gives the same schema.
  auto again = ParseSchema(schema->text);
  FUZZ_CHECK(again);
  FUZZ_CHECK(again->parameters == schema->parameters);
  FUZZ_CHECK(again->name == schema->name && again->description == schema->description);

  // Normalizing the normalized parameters is a no-op.
  nlohmann::json raw = schema->raw;
  raw["parameters"] = schema->parameters;
  auto normalized = SchemaFromJson(std::move(raw));
  FUZZ_CHECK(normalized);
  FUZZ_CHECK(normalized->parameters == schema->parameters);
  CheckNormalized(*normalized);
  return 0;
}
