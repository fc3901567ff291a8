// The tool's side of the host channel (src/hostapi/host_channel.h): a tool
// whose schema says "host_api": true finds the channel at IKIGAI_HOST_FD
// and asks the host with one JSON-RPC request per call of CallHost.
#pragma once

#include <string_view>

#include "base/result.h"
#include "toolkit/json.h"
#include "toolkit/tool_error.h"

namespace ikigai::toolkit {

// Sends the request and waits for its answer: the result, or a ToolError
// (HOST_UNAVAILABLE without a channel or when it breaks; NO_USER when a
// question has nobody to answer it; HOST_ERROR with the host's message when
// it refuses).
Result<Json, ToolError> CallHost(std::string_view method, const Json& params);

// Sends a notification (no answer comes): `progress` {message}. False
// without a channel.
bool NotifyHost(std::string_view method, const Json& params);

}  // namespace ikigai::toolkit
