#include "protocol/wrapper.h"

#include <gtest/gtest.h>

namespace ikigai::protocol {
namespace {

TEST(WrapperTest, SuccessCarriesTheToolsObject) {
  // Exactly seeds/001's shape, in its order: tool_success first, the
  // result's fields in the tool's own order.
  EXPECT_EQ(WrapSuccess({{"output", "3 lines"}, {"exit_code", 0}}).dump(),
            R"({"tool_success":true,"result":{"output":"3 lines","exit_code":0}})");
}

TEST(WrapperTest, FailureCarriesMessageAndCode) {
  EXPECT_EQ(
      WrapFailure(wrapper_code::kToolCrashed, "Tool 'bash' crashed with exit code 139").dump(),
      R"({"tool_success":false,"error":"Tool 'bash' crashed with exit code 139",)"
      R"("error_code":"TOOL_CRASHED"})");
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
