// The JSON type tools use: insertion-ordered, so answers print their fields
// in the order the contract lists them ("output" first).
#pragma once

#include <nlohmann/json.hpp>

namespace ikigai::toolkit {

using Json = nlohmann::ordered_json;

}  // namespace ikigai::toolkit
