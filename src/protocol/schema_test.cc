#include "protocol/schema.h"

#include <gtest/gtest.h>

namespace ikigai::protocol {
namespace {

using Json = nlohmann::json;

std::string ErrorOf(std::string_view text) {
  auto schema = ParseSchema(text);
  EXPECT_FALSE(schema.ok()) << text;
  return schema.ok() ? std::string() : schema.error();
}

TEST(SchemaTest, JsonSchemaShapeIsKept) {
  const std::string text = R"(
    {"name": "word_count", "description": "Count words.",
     "parameters": {"type": "object",
                    "properties": {"file_path": {"type": "string", "description": "Path"}},
                    "required": ["file_path"],
                    "additionalProperties": false}}
  )";
  auto schema = ParseSchema(text);
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->name, "word_count");
  EXPECT_EQ(schema->description, "Count words.");
  EXPECT_EQ(schema->parameters, Json::parse(R"({"type": "object",
      "properties": {"file_path": {"type": "string", "description": "Path"}},
      "required": ["file_path"], "additionalProperties": false})"));
  EXPECT_TRUE(schema->returns.is_null());
  EXPECT_TRUE(schema->annotations.is_null());
  EXPECT_EQ(schema->raw["name"], "word_count");
  EXPECT_EQ(schema->text.front(), '{');  // surrounding whitespace removed
  EXPECT_EQ(schema->text.back(), '}');
  EXPECT_NE(schema->text.find("\"additionalProperties\": false"), std::string::npos);
}

TEST(SchemaTest, OlderShapeBecomesJsonSchema) {
  // seeds/001: each parameter's definition straight under "parameters".
  auto schema = ParseSchema(R"({"name": "db_query", "description": "Query.",
      "parameters": {"query": {"type": "string", "description": "SQL", "required": true},
                     "limit": {"type": "integer", "required": false},
                     "verbose": {"type": "boolean"}},
      "returns": {"type": "object", "properties": {"rows": {"type": "array"}}}})");
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->parameters, Json::parse(R"({"type": "object",
      "properties": {"query": {"type": "string", "description": "SQL"},
                     "limit": {"type": "integer"},
                     "verbose": {"type": "boolean"}},
      "required": ["query"]})"));
  EXPECT_EQ(schema->returns["properties"]["rows"]["type"], "array");
}

TEST(SchemaTest, OlderShapeMayNameParametersTypeOrProperties) {
  auto schema = ParseSchema(R"({"name": "x", "description": "d",
      "parameters": {"type": {"type": "string", "required": true},
                     "properties": {"type": "object", "description": "more"}}})");
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->parameters["type"], "object");
  EXPECT_EQ(schema->parameters["properties"]["type"], Json::parse(R"({"type": "string"})"));
  EXPECT_EQ(schema->parameters["properties"]["properties"]["description"], "more");
  EXPECT_EQ(schema->parameters["required"], Json::parse(R"(["type"])"));
}

TEST(SchemaTest, JsonSchemaWithoutTypeOrRequiredIsCompleted) {
  auto schema = ParseSchema(R"({"name": "x", "description": "d",
      "parameters": {"properties": {"a": {"type": "string"}}}})");
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->parameters, Json::parse(R"({"type": "object",
      "properties": {"a": {"type": "string"}}, "required": []})"));
}

TEST(SchemaTest, NoParametersAtAll) {
  for (const char* parameters :
       {R"({})", R"({"type": "object"})", R"({"type": "object", "properties": {}})"}) {
    auto schema = ParseSchema(std::string(R"({"name": "x", "description": "d", "parameters": )") +
                              parameters + "}");
    ASSERT_TRUE(schema.ok()) << parameters << ": " << schema.error();
    EXPECT_EQ(schema->parameters, Json::parse(R"({"type": "object", "properties": {},
        "required": []})"))
        << parameters;
  }
}

TEST(SchemaTest, PerPropertyRequiredInJsonSchemaShapeIsMerged) {
  auto schema = ParseSchema(R"({"name": "x", "description": "d",
      "parameters": {"type": "object",
                     "properties": {"a": {"type": "string", "required": true},
                                    "b": {"type": "string"},
                                    "c": {"type": "object", "properties": {"d": {}},
                                          "required": ["d"]}},
                     "required": ["b", "a"]}})");
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->parameters["required"], Json::parse(R"(["b", "a"])"));  // no duplicate
  EXPECT_FALSE(schema->parameters["properties"]["a"].contains("required"));
  // A nested object's own "required" array is JSON Schema, left alone.
  EXPECT_EQ(schema->parameters["properties"]["c"]["required"], Json::parse(R"(["d"])"));
}

TEST(SchemaTest, ReturnsAndAnnotationsAreKept) {
  auto schema = ParseSchema(R"({"name": "x", "description": "d", "parameters": {},
      "returns": {"type": "object"},
      "annotations": {"readOnlyHint": true, "destructiveHint": false},
      "x-extra": 1})");
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->returns, Json::parse(R"({"type": "object"})"));
  EXPECT_EQ(schema->annotations["readOnlyHint"], true);
  EXPECT_EQ(schema->annotations["destructiveHint"], false);
  EXPECT_EQ(schema->raw["x-extra"], 1);
}

TEST(SchemaTest, NotJson) {
  EXPECT_EQ(ErrorOf(""), "invalid JSON: nothing was printed");
  EXPECT_EQ(ErrorOf(" \n"), "invalid JSON: nothing was printed");
  const std::string garbage = ErrorOf("Usage: foo [--help]");
  EXPECT_TRUE(garbage.starts_with("invalid JSON: parse error at line 1, column 1")) << garbage;
  const std::string two = ErrorOf(R"({"name": "a"} {"name": "b"})");
  EXPECT_TRUE(two.starts_with("invalid JSON: ")) << two;
  EXPECT_NE(two.find("end of input"), std::string::npos) << two;
  const std::string bad_utf8 = ErrorOf("{\"name\": \"\xff\"}");
  EXPECT_TRUE(bad_utf8.starts_with("invalid JSON: ")) << bad_utf8;
}

TEST(SchemaTest, EveryViolationIsNamed) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {R"([1])", "the schema must be a JSON object, got array"},
      {R"({"description": "d", "parameters": {}})", R"(missing "name")"},
      {R"({"name": 7, "description": "d", "parameters": {}})", "name must be a string, got number"},
      {R"({"name": "", "description": "d", "parameters": {}})", "name must not be empty"},
      {R"({"name": "x", "parameters": {}})", R"(missing "description")"},
      {R"({"name": "x", "description": null, "parameters": {}})",
       "description must be a string, got null"},
      {R"({"name": "x", "description": "d"})", R"(missing "parameters")"},
      {R"({"name": "x", "description": "d", "parameters": []})",
       "parameters must be an object, got array"},
      {R"({"name": "x", "description": "d", "parameters": {"type": "array"}})",
       R"(parameters.type must be "object", got "array")"},
      {R"({"name": "x", "description": "d", "parameters": {"type": "object", "properties": []}})",
       "parameters.properties must be an object, got array"},
      {R"({"name": "x", "description": "d", "parameters": {"type": "object", "required": "a"}})",
       "parameters.required must be an array of property names"},
      {R"({"name": "x", "description": "d",
           "parameters": {"type": "object", "properties": {"a": {}}, "required": ["a", 1]}})",
       "parameters.required must be an array of property names"},
      {R"({"name": "x", "description": "d",
           "parameters": {"type": "object", "properties": {"a": {}}, "required": ["b"]}})",
       R"(parameters.required names "b", which is not a declared parameter)"},
      {R"({"name": "x", "description": "d",
           "parameters": {"type": "object", "properties": {"a": "string"}}})",
       "parameters.properties.a must be an object (the parameter's definition), got string"},
      {R"({"name": "x", "description": "d", "parameters": {"a": 3}})",
       "parameters.a must be an object (the parameter's definition), got number"},
      {R"({"name": "x", "description": "d", "parameters": {"a": {"required": "yes"}}})",
       "parameters.a.required must be true or false"},
      {R"({"name": "x", "description": "d", "parameters": {}, "annotations": ["readOnlyHint"]})",
       "annotations must be an object, got array"},
      {R"({"name": "x", "description": "d", "parameters": {}, "host_api": "true"})",
       "host_api must be true or false, got string"},
      {R"({"name": "x", "description": "d", "parameters": {}, "env": "TAVILY_API_KEY"})",
       "env must be an array of at most 32 variable names, got string"},
      {R"({"name": "x", "description": "d", "parameters": {}, "env": ["A=B"]})",
       "env must hold variable names (letters, digits and _), got string"},
  };
  for (const Case& c : cases) EXPECT_EQ(ErrorOf(c.text), c.error) << c.text;
}

TEST(SchemaTest, HostApiAsksForTheHostChannel) {
  const auto with =
      ParseSchema(R"({"name": "x", "description": "d", "parameters": {}, "host_api": true})");
  ASSERT_TRUE(with.ok()) << with.error();
  EXPECT_TRUE(with->host_api);
  const auto without = ParseSchema(R"({"name": "x", "description": "d", "parameters": {}})");
  ASSERT_TRUE(without.ok()) << without.error();
  EXPECT_FALSE(without->host_api);
}

TEST(SchemaTest, EnvNamesTheVariablesTheToolNeeds) {
  const auto schema = ParseSchema(
      R"({"name": "x", "description": "d", "parameters": {}, "env": ["TAVILY_API_KEY", "B_2"]})");
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->env, (std::vector<std::string>{"TAVILY_API_KEY", "B_2"}));
  EXPECT_FALSE(IsVariableName("2A"));
  EXPECT_FALSE(IsVariableName(""));
  EXPECT_TRUE(IsVariableName("_a1"));
}

TEST(SchemaTest, SchemaFromJsonChecksTheSameWay) {
  auto schema = SchemaFromJson(Json::parse(R"({"name": "x", "description": "d",
      "parameters": {"a": {"type": "string", "required": true}}})"));
  ASSERT_TRUE(schema.ok()) << schema.error();
  EXPECT_EQ(schema->parameters["required"], Json::parse(R"(["a"])"));
  EXPECT_TRUE(schema->text.empty());
  auto bad = SchemaFromJson(Json("text"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "the schema must be a JSON object, got string");
}

}  // namespace
}  // namespace ikigai::protocol
