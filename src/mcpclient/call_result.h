// What the model sees of an MCP tools/call result, in ikigai's wrapper
// (protocol/wrapper.h), like an external tool's answer:
//   {"tool_success": true, "result": {"output": "...", "structuredContent"?: {...}}}
//   {"tool_success": true, "result": {"error": "...", "error_code": "TOOL_ERROR"}}  (isError)
// Text content is joined; images, audio and resources are summarized
// ("[image/png, 12345 bytes]"), never passed on as base64. The text is cut
// at `output_limit` bytes (structuredContent is dropped when it alone is
// over the limit), saying so.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "protocol/wrapper.h"

namespace ikigai::mcpclient {

// One content item as text.
std::string ContentText(const nlohmann::json& item);

protocol::WrappedJson WrapCallResult(const nlohmann::json& result, std::size_t output_limit);

}  // namespace ikigai::mcpclient
