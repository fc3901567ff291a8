// A tool's argument validation (tools/toolkit/args.h) against a schema from
// the input. The input is a --schema answer on its first line (normalized
// by src/protocol/schema.h, as the host does) and the call's arguments
// after it. Once Args::Parse accepts the arguments, every accessor used as
// the schema allows must answer without aborting.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "protocol/schema.h"
#include "toolkit/args.h"

using ikigai::toolkit::Args;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [schema_text, input] = ikigai::fuzz::SplitOnce(ikigai::fuzz::AsText(data, size), '\n');
  auto schema = ikigai::protocol::ParseSchema(schema_text);
  if (!schema) return 0;
  // Args keeps a pointer to the parameters: they must outlive it.
  const ikigai::toolkit::Json parameters(schema->parameters);

  auto args = Args::Parse(input, parameters);
  if (!args) {
    FUZZ_CHECK(!args.error().message.empty());
    // As tool_main.cc prints it (the parser's message may quote bad bytes).
    (void)args.error().ToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return 0;
  }
  const ikigai::toolkit::Json values = ikigai::toolkit::Json::parse(input);
  FUZZ_CHECK(values.is_object());

  const ikigai::toolkit::Json& required = parameters.at("required");
  for (const auto& [name, definition] : parameters.at("properties").items()) {
    const auto type = definition.find("type");
    if (type == definition.end() || !type->is_string()) continue;
    const bool given = values.contains(name) && !values.at(name).is_null();
    bool is_required = false;
    for (const ikigai::toolkit::Json& r : required) is_required |= r == name;
    if (is_required) FUZZ_CHECK(given);
    if (*type == "string") {
      if (is_required) FUZZ_CHECK(args->String(name) == values.at(name).get<std::string>());
      const auto value = args->OptionalString(name);
      FUZZ_CHECK(value.has_value() == given);
    } else if (*type == "integer") {
      FUZZ_CHECK(args->OptionalInt(name).has_value() == given);
    } else if (*type == "boolean") {
      const bool value = args->Bool(name, false);
      FUZZ_CHECK(!given || value == values.at(name).get<bool>());
    }
  }
  return 0;
}
