#include "protocol/wrapper.h"

#include <utility>

namespace ikigai::protocol {

nlohmann::json WrapSuccess(nlohmann::json result) {
  return {{"tool_success", true}, {"result", std::move(result)}};
}

nlohmann::json WrapFailure(std::string_view code, std::string message) {
  return {
      {"tool_success", false}, {"error", std::move(message)}, {"error_code", std::string(code)}};
}

}  // namespace ikigai::protocol
