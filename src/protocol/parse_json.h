// Parsing JSON text without letting an exception escape.
//
// nlohmann's non-throwing parse says only that the text is invalid; people
// need to know where. On failure the text is parsed once more with
// exceptions on, caught right here, to get the parser's message with its
// line and column.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/result.h"

namespace ikigai::protocol {

// Errors: "parse error at line 1, column 7: syntax error while parsing ...".
// Json is nlohmann::json, or nlohmann::ordered_json to keep the text's key order.
template <typename Json = nlohmann::json>
Result<Json, std::string> ParseJson(std::string_view text);

}  // namespace ikigai::protocol
