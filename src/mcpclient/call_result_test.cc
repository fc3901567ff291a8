#include "mcpclient/call_result.h"

#include <gtest/gtest.h>

namespace ikigai::mcpclient {
namespace {

using json = nlohmann::json;

TEST(McpCallResult, JoinsTextAndSummarizesTheRest) {
  const json result = {
      {"content",
       {{{"type", "text"}, {"text", "one"}},
        {{"type", "image"}, {"mimeType", "image/png"}, {"data", "AAAAAA=="}},
        {{"type", "resource"}, {"resource", {{"uri", "file:///a"}, {"text", "body"}}}},
        {{"type", "resource"},
         {"resource", {{"uri", "file:///b"}, {"mimeType", "application/pdf"}, {"blob", "AAAA"}}}},
        {{"type", "resource_link"}, {"uri", "file:///c"}}}}};
  const auto wrapped = WrapCallResult(result, 0);
  EXPECT_EQ(wrapped["tool_success"], true);
  EXPECT_EQ(wrapped["result"]["output"],
            "one\n[image/png, 4 bytes]\n[resource file:///a]\nbody\n[resource file:///b, "
            "application/pdf, 3 bytes]\n[resource link: file:///c]");
}

TEST(McpCallResult, IsErrorBecomesAnOperationFailure) {
  const auto wrapped = WrapCallResult(
      {{"isError", true}, {"content", {{{"type", "text"}, {"text", "no such file"}}}}}, 0);
  EXPECT_EQ(wrapped["result"]["error"], "no such file");
  EXPECT_EQ(wrapped["result"]["error_code"], "TOOL_ERROR");
}

// A server's answer may hold anything: an isError that is not a boolean is
// no error (and no crash).
TEST(McpCallResult, AnIsErrorThatIsNotABooleanIsNoError) {
  const auto wrapped =
      WrapCallResult({{"isError", "no"}, {"content", {{{"type", "text"}, {"text", "fine"}}}}}, 0);
  EXPECT_EQ(wrapped["tool_success"], true);
  EXPECT_FALSE(wrapped["result"].contains("error_code")) << wrapped;
}

TEST(McpCallResult, KeepsStructuredContent) {
  const auto wrapped = WrapCallResult(
      {{"content", {{{"type", "text"}, {"text", "3"}}}}, {"structuredContent", {{"sum", 3}}}}, 0);
  EXPECT_EQ(wrapped["result"]["structuredContent"]["sum"], 3);
}

TEST(McpCallResult, CutsAtTheOutputLimitAndSaysSo) {
  const std::string big(1000, 'x');
  const auto wrapped = WrapCallResult(
      {{"content", {{{"type", "text"}, {"text", big}}}}, {"structuredContent", {{"big", big}}}},
      100);
  EXPECT_EQ(wrapped["result"]["output"].get<std::string>().size(), 100u);
  EXPECT_TRUE(wrapped["result"].contains("truncated"));
  EXPECT_FALSE(wrapped["result"].contains("structuredContent"));
  EXPECT_TRUE(wrapped["result"].contains("structuredContent_dropped"));
}

}  // namespace
}  // namespace ikigai::mcpclient
