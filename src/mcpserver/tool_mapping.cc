#include "mcpserver/tool_mapping.h"

#include "executor/executor.h"

#include <string>

namespace ikigai::mcpserver {
namespace {

using Json = nlohmann::json;

bool IsContentBlock(const Json& block) {
  if (!block.is_object()) return false;
  auto type = block.find("type");
  if (type == block.end() || !type->is_string()) return false;
  const std::string& name = type->get_ref<const std::string&>();
  return name == "text" || name == "image" || name == "audio" || name == "resource" ||
         name == "resource_link";
}

// The result's own MCP content, if it has some.
const Json* OwnContent(const Json& result) {
  if (!result.is_object()) return nullptr;
  auto content = result.find("content");
  if (content == result.end() || !content->is_array() || content->empty()) return nullptr;
  for (const Json& block : *content) {
    if (!IsContentBlock(block)) return nullptr;
  }
  return &*content;
}

Json Text(std::string text) { return {{"type", "text"}, {"text", std::move(text)}}; }

std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// "message (ERROR_CODE)", or the JSON when there is no message.
std::string FailureText(const Json& failure) {
  std::string text;
  if (auto error = failure.find("error"); error != failure.end() && error->is_string()) {
    text = error->get<std::string>();
  } else {
    text = Dump(failure);
  }
  if (auto code = failure.find("error_code"); code != failure.end() && code->is_string()) {
    text += " (" + code->get<std::string>() + ")";
  }
  return text;
}

}  // namespace

Json McpTool(const registry::Tool& tool) {
  Json out = {{"name", tool.name},
              {"description", tool.schema.description},
              {"inputSchema", tool.schema.parameters}};
  if (tool.schema.annotations.is_object()) {
    out["annotations"] = tool.schema.annotations;
    // A tool that acts through the host (the task tool: a subagent that may
    // edit and run commands) is no read-only tool to a client, whatever it
    // says for the host's scheduling.
    if (executor::WantsHostChannel(tool)) out["annotations"]["readOnlyHint"] = false;
    if (auto title = tool.schema.annotations.find("title");
        title != tool.schema.annotations.end() && title->is_string()) {
      out["title"] = *title;
    }
  }
  return out;
}

Json McpCallResult(const protocol::WrappedJson& wrapped_ordered) {
  // Plain json from here: MCP clients do not care for the order of keys.
  const Json wrapped = Json::parse(
      wrapped_ordered.dump(-1, ' ', false, Json::error_handler_t::replace), nullptr, false);
  const auto success = wrapped.find("tool_success");
  if (!wrapped.is_object() || success == wrapped.end() || *success != true) {
    Json failure = wrapped.is_object() ? wrapped : Json::object();
    failure.erase("tool_success");
    return {{"content", Json::array({Text(FailureText(failure))})},
            {"structuredContent", failure},
            {"isError", true}};
  }
  const Json result = wrapped.contains("result") ? wrapped["result"] : Json();
  const Json structured = result.is_object() ? result : Json{{"result", result}};
  if (result.is_object() && result.contains("error") && result.contains("error_code")) {
    return {{"content", Json::array({Text(FailureText(result))})},
            {"structuredContent", structured},
            {"isError", true}};
  }
  Json content;
  if (const Json* own = OwnContent(result)) {
    content = *own;
  } else {
    content = Json::array({Text(Dump(result))});
  }
  return {{"content", std::move(content)}, {"structuredContent", structured}, {"isError", false}};
}

}  // namespace ikigai::mcpserver
