// One line for a call and one for its outcome, as every front end shows them,
// and a call in full for an approval question. Outside text in them has its
// controls made visible (base/visible_text.h).
#pragma once

#include <string>

#include "protocol/wrapper.h"
#include "providers/conversation.h"

namespace ikigai::session {

// One line describing a call for progress output: "bash: ls -la".
std::string SummarizeCall(const providers::ToolCall& call);
// The whole call, for a question that asks to approve it: a bash command
// as it will run (every line of it), other arguments as indented JSON.
// Never cut: what is approved is what is shown.
std::string DescribeCallInFull(const providers::ToolCall& call);
// One line describing a result: "ok", "exit 2", "FILE_NOT_FOUND", "TOOL_TIMEOUT", "truncated".
std::string SummarizeResult(const protocol::WrappedJson& wrapped);

}  // namespace ikigai::session
