#include "mcpserver/tool_mapping.h"

#include <gtest/gtest.h>

namespace ikigai::mcpserver {
namespace {

using Json = nlohmann::json;

TEST(ToolMapping, ATitleInTheAnnotationsIsTheToolsTitle) {
  auto schema = protocol::SchemaFromJson(
      {{"name", "x"},
       {"description", "d"},
       {"parameters", Json::object()},
       {"annotations", {{"title", "Read a file"}, {"readOnlyHint", true}}}});
  ASSERT_TRUE(schema);
  const Json tool = McpTool({"x", "/x-tool", registry::Source::kUser, *schema, {}});
  EXPECT_EQ(tool["title"], "Read a file");
  EXPECT_EQ(tool["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(tool["inputSchema"]["type"], "object");
}

// The task tool says readOnlyHint for the host's scheduling, but its
// subagent may edit and run commands: a client must not take it for
// read-only.
TEST(ToolMapping, AToolActingThroughTheHostIsNotReadOnly) {
  auto schema = protocol::SchemaFromJson({{"name", "task"},
                                          {"description", "d"},
                                          {"parameters", Json::object()},
                                          {"host_api", true},
                                          {"annotations", {{"readOnlyHint", true}}}});
  ASSERT_TRUE(schema);
  const Json tool = McpTool({"task", "/task-tool", registry::Source::kSystem, *schema, {}});
  EXPECT_EQ(tool["annotations"]["readOnlyHint"], false);
}

TEST(ToolMapping, WithoutAnnotationsThereAreNone) {
  auto schema = protocol::SchemaFromJson(
      {{"name", "x"}, {"description", "d"}, {"parameters", Json::object()}});
  ASSERT_TRUE(schema);
  EXPECT_FALSE(
      McpTool({"x", "/x-tool", registry::Source::kUser, *schema, {}}).contains("annotations"));
}

TEST(ToolMapping, ANonObjectResultIsWrappedForStructuredContent) {
  const Json result = McpCallResult(protocol::WrapSuccess(protocol::WrappedJson::array({1, 2})));
  EXPECT_EQ(result["structuredContent"], Json({{"result", {1, 2}}}));
  EXPECT_EQ(result["content"][0]["text"], "[1,2]");
  EXPECT_EQ(result["isError"], false);
}

TEST(ToolMapping, TheResultsOwnContentBlocksPassThrough) {
  const protocol::WrappedJson own = {
      {"content",
       {{{"type", "image"}, {"data", "iVBO"}, {"mimeType", "image/png"}},
        {{"type", "text"}, {"text", "a picture"}}}}};
  const Json result = McpCallResult(protocol::WrapSuccess(own));
  EXPECT_EQ(result["content"].size(), 2u);
  EXPECT_EQ(result["content"][0]["type"], "image");
  EXPECT_EQ(result["structuredContent"]["content"].size(), 2u);
}

TEST(ToolMapping, ContentThatIsNotMcpContentStaysInTheText) {
  const protocol::WrappedJson own = {{"content", {{{"kind", "x"}}}}};
  const Json result = McpCallResult(protocol::WrapSuccess(own));
  ASSERT_EQ(result["content"].size(), 1u);
  EXPECT_EQ(result["content"][0]["type"], "text");
}

TEST(ToolMapping, AFailureWithoutAMessageShowsItsJson) {
  const Json result =
      McpCallResult(protocol::WrappedJson{{"tool_success", false}, {"exit_code", 3}});
  EXPECT_EQ(result["isError"], true);
  EXPECT_EQ(result["content"][0]["text"], "{\"exit_code\":3}");
}

}  // namespace
}  // namespace ikigai::mcpserver
