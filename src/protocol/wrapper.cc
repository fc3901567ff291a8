#include "protocol/wrapper.h"

#include <utility>

namespace ikigai::protocol {

WrappedJson WrapSuccess(WrappedJson result) {
  return {{"tool_success", true}, {"result", std::move(result)}};
}

WrappedJson WrapFailure(std::string_view code, std::string message) {
  return {
      {"tool_success", false}, {"error", std::move(message)}, {"error_code", std::string(code)}};
}

}  // namespace ikigai::protocol
