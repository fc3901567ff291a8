// One line for a call and one for its outcome, as every front end shows them.
#pragma once

#include <string>

#include "protocol/wrapper.h"
#include "providers/conversation.h"

namespace ikigai::session {

// One line describing a call for progress output: "bash: ls -la".
std::string SummarizeCall(const providers::ToolCall& call);
// One line describing a result: "ok", "exit 2", "FILE_NOT_FOUND", "TOOL_TIMEOUT", "truncated".
std::string SummarizeResult(const protocol::WrappedJson& wrapped);

}  // namespace ikigai::session
