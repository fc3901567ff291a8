// ikigai's tools and their answers in MCP's terms (DECISIONS §10).
//
//   a tool       -> {name, description, inputSchema (the --schema
//                   parameters, kept whole: $schema, $defs, ...),
//                   annotations (passed through)}
//   its answer   -> {content: [{type: text, text: the result as JSON}],
//                   structuredContent: the result (non-objects wrapped as
//                   {"result": ...})}
// An operation failure (the tool answered {"error", "error_code"}) and a
// tool failure (timeout, crash, bad output, refused) are isError: true with
// the message as text. A result that carries MCP content blocks of its own
// ("content": [{"type": "text"|"image"|"audio"|"resource"|"resource_link",
// ...}]) has them passed through as the content.
#pragma once

#include <nlohmann/json.hpp>

#include "protocol/wrapper.h"
#include "registry/registry.h"

namespace ikigai::mcpserver {

nlohmann::json McpTool(const registry::Tool& tool);

nlohmann::json McpCallResult(const protocol::WrappedJson& wrapped);

}  // namespace ikigai::mcpserver
