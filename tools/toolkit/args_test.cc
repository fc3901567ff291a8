#include "toolkit/args.h"

#include <gtest/gtest.h>

namespace ikigai::toolkit {
namespace {

const Json kParameters = Json::parse(R"({
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "count": {"type": "integer"},
    "all": {"type": "boolean"}
  },
  "required": ["path"]
})");

std::string ErrorOf(std::string_view input) {
  auto args = Args::Parse(input, kParameters);
  EXPECT_FALSE(args.ok()) << input;
  if (args.ok()) return "";
  EXPECT_EQ(args.error().code, "INVALID_ARG");
  return args.error().message;
}

TEST(Args, TypedAccessToValidInput) {
  auto args = Args::Parse(R"({"path": "a.txt", "count": 3, "all": true, "extra": 1})", kParameters);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->String("path"), "a.txt");
  EXPECT_EQ(args->OptionalInt("count"), 3);
  EXPECT_TRUE(args->Bool("all", false));
}

TEST(Args, AbsentAndNullOptionalsUseDefaults) {
  auto args = Args::Parse(R"({"path": "a", "count": null})", kParameters);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->OptionalInt("count"), std::nullopt);
  EXPECT_FALSE(args->Bool("all", false));
  EXPECT_EQ(args->OptionalString("path"), "a");
}

TEST(Args, WholeNumberFloatIsAnInteger) {
  auto args = Args::Parse(R"({"path": "a", "count": 5.0})", kParameters);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->OptionalInt("count"), 5);
  EXPECT_NE(ErrorOf(R"({"path": "a", "count": 5.5})").find("'count' must be an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"path": "a", "count": 1e300})").find("'count'"), std::string::npos);
}

TEST(Args, HugeUnsignedIntegerIsClampedNotWrapped) {
  auto args = Args::Parse(R"({"path": "a", "count": 18446744073709551615})", kParameters);
  ASSERT_TRUE(args.ok());
  EXPECT_GT(*args->OptionalInt("count"), 0);
}

TEST(Args, EveryMalformedInputNamesTheProblem) {
  EXPECT_NE(ErrorOf("not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("[1, 2]").find("JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf("{}").find("Missing required parameter 'path'"), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"path": 7})").find("'path' must be a string, got an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"path": "a", "all": "yes"})").find("'all' must be a boolean, got a string"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"path": "a", "count": [1]})").find("got an array"), std::string::npos);
}

TEST(Args, InvalidUtf8InInputIsAJsonError) {
  EXPECT_NE(ErrorOf("{\"path\": \"\xFF\"}").find("not valid JSON"), std::string::npos);
}

// Found by fuzz/args_fuzz.cc: a "type" that is not a string (a JSON Schema
// list of types, or a mistake) threw nlohmann's type_error out of Parse and
// crashed the tool. A list allows each of its types; anything else is not
// checked.
TEST(Args, TypeListsAndOddTypesAreCheckedWithoutThrowing) {
  const Json parameters = Json::parse(R"({
    "type": "object",
    "properties": {
      "name": {"type": ["string", "integer"]},
      "odd": {"type": 5},
      "empty": {"type": []}
    },
    "required": []
  })");
  EXPECT_TRUE(Args::Parse(R"({"name": "x", "odd": true, "empty": 1})", parameters).ok());
  EXPECT_TRUE(Args::Parse(R"({"name": 3})", parameters).ok());
  auto args = Args::Parse(R"({"name": true})", parameters);
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.error().message,
            "Parameter 'name' must be a string or an integer, got a boolean.");
}

}  // namespace
}  // namespace ikigai::toolkit
