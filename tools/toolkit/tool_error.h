// An operation failure as the model sees it: {"error", "error_code", ...}.
#pragma once

#include <string>
#include <string_view>

#include "toolkit/json.h"

namespace ikigai::toolkit {

struct ToolError {
  std::string_view code;        // one of toolkit/error_codes.h
  std::string message;          // what went wrong and what to do next
  Json extra = Json::object();  // helpful fields: candidates, lines, size...

  Json ToJson() const {
    Json j = {{"error", message}, {"error_code", code}};
    for (const auto& [key, value] : extra.items()) j[key] = value;
    return j;
  }
};

}  // namespace ikigai::toolkit
