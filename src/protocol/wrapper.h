// The wrapper the model sees around every tool call (seeds/001, DECISIONS §3):
//   {"tool_success": true, "result": <the tool's object>}
//   {"tool_success": false, "error": "...", "error_code": "...",
//    "exit_code"?, "stdout"?, "stderr"?}
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ikigai::protocol {

namespace wrapper_code {
inline constexpr std::string_view kToolTimeout = "TOOL_TIMEOUT";
inline constexpr std::string_view kToolCrashed = "TOOL_CRASHED";
inline constexpr std::string_view kInvalidOutput = "INVALID_OUTPUT";
inline constexpr std::string_view kToolNotFound = "TOOL_NOT_FOUND";
inline constexpr std::string_view kInvalidParams = "INVALID_PARAMS";
inline constexpr std::string_view kOutputTooLarge = "OUTPUT_TOO_LARGE";
// The host's own refusals: the user stopped the turn (or the session ended
// before the call finished), or the permission layer refused the call.
inline constexpr std::string_view kCancelled = "CANCELLED";
inline constexpr std::string_view kPermissionDenied = "PERMISSION_DENIED";
}  // namespace wrapper_code

// Ordered, so that "tool_success" comes first and a tool's result keeps the
// order of its fields ("output" first), as the model reads them.
using WrappedJson = nlohmann::ordered_json;

WrappedJson WrapSuccess(WrappedJson result);
WrappedJson WrapFailure(std::string_view code, std::string message);

}  // namespace ikigai::protocol
