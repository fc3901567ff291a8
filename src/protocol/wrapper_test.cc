#include "protocol/wrapper.h"

#include <gtest/gtest.h>

namespace ikigai::protocol {
namespace {

using nlohmann::json;

TEST(WrapperTest, SuccessCarriesTheToolsObject) {
  EXPECT_EQ(WrapSuccess({{"output", "3 lines"}}),
            json::parse(R"({"tool_success": true, "result": {"output": "3 lines"}})"));
}

TEST(WrapperTest, FailureCarriesMessageAndCode) {
  EXPECT_EQ(WrapFailure(wrapper_code::kToolCrashed, "Tool 'bash' crashed with exit code 139"),
            json::parse(R"({"tool_success": false,
                            "error": "Tool 'bash' crashed with exit code 139",
                            "error_code": "TOOL_CRASHED"})"));
}

TEST(WrapperTest, CodesAreTheSpecifiedOnes) {
  EXPECT_EQ(wrapper_code::kToolTimeout, "TOOL_TIMEOUT");
  EXPECT_EQ(wrapper_code::kToolCrashed, "TOOL_CRASHED");
  EXPECT_EQ(wrapper_code::kInvalidOutput, "INVALID_OUTPUT");
  EXPECT_EQ(wrapper_code::kToolNotFound, "TOOL_NOT_FOUND");
  EXPECT_EQ(wrapper_code::kInvalidParams, "INVALID_PARAMS");
  EXPECT_EQ(wrapper_code::kOutputTooLarge, "OUTPUT_TOO_LARGE");
}

}  // namespace
}  // namespace ikigai::protocol
