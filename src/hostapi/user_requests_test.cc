#include "hostapi/user_requests.h"

#include <gtest/gtest.h>

namespace ikigai::hostapi {
namespace {

using nlohmann::json;

// Answers every question with `reply`, remembering what it was asked.
class FakeUser : public User {
 public:
  std::optional<Reply> Elicit(const Question& question, int) override {
    asked.push_back(question);
    return reply;
  }
  void Progress(const std::string& tool, const std::string& message) override {
    progress.push_back(tool + ": " + message);
  }
  std::optional<Reply> reply;
  std::vector<Question> asked;
  std::vector<std::string> progress;
};

class Next : public Methods {
 public:
  MethodResult Call(const std::string& method, const json&, const CallContext&) override {
    return json{{"handled", method}};
  }
};

TEST(UserRequestsTest, QuestionsAreCheckedWithErrorsThatSayWhatIsWrong) {
  EXPECT_EQ(ParseQuestion(json{{"message", "Which?"}})->message, "Which?");
  auto with_options = ParseQuestion(json{{"message", "Which?"}, {"options", {"a", "b"}}});
  ASSERT_TRUE(with_options);
  EXPECT_EQ(with_options->options, (std::vector<std::string>{"a", "b"}));

  const std::pair<json, std::string> bad[] = {
      {json{{"message", " "}}, "\"message\" must be a non-empty string"},
      {json{{"message", 3}}, "\"message\" must be a non-empty string"},
      {json{{"message", "q"}, {"options", json::array()}}, "array of 1 to 20"},
      {json{{"message", "q"}, {"options", {"a", 2}}}, "non-empty string"},
      {json{{"message", "q"}, {"options", {"a"}}, {"requestedSchema", {{"type", "object"}}}},
       "not both"},
      {json{{"message", "q"}, {"requestedSchema", {{"type", "object"}}}}, "\"properties\""},
      {json{
           {"message", "q"},
           {"requestedSchema", {{"type", "object"}, {"properties", {{"x", {{"type", "array"}}}}}}}},
       "properties.x.type"},
      {json{{"message", "q"},
            {"requestedSchema",
             {{"type", "object"},
              {"properties", {{"x", {{"type", "string"}}}}},
              {"required", {"y"}}}}},
       "required names a field"},
      {json{{"message", "q"},
            {"requestedSchema",
             {{"type", "object"},
              {"properties", {{"n", {{"type", "integer"}, {"default", "ten"}}}}}}}},
       "properties.n.default must be a value of the field's type"},
      {json{{"message", "q"},
            {"requestedSchema",
             {{"type", "object"},
              {"properties",
               {{"c", {{"type", "string"}, {"enum", {"a", "b"}}, {"default", "z"}}}}}}}},
       "properties.c.default must be a value"},
      {json{{"message", "q"}, {"options", {std::string(501, 'x')}}}, "at most 500 bytes"},
      {json::array(), "params must be an object"},
  };
  for (const auto& [params, expected] : bad) {
    auto parsed = ParseQuestion(params);
    ASSERT_FALSE(parsed) << params;
    EXPECT_NE(parsed.error().find(expected), std::string::npos) << parsed.error();
  }
}

TEST(UserRequestsTest, ANumberPicksAnOptionAndAnythingElseIsTheAnswer) {
  Question question;
  question.options = {"Postgres", "SQLite"};
  EXPECT_EQ(*AnswerContent(question, " 2 "), (json{{"answer", "SQLite"}, {"option", 2}}));
  EXPECT_EQ(*AnswerContent(question, "3"), (json{{"answer", "3"}}));
  EXPECT_EQ(*AnswerContent(question, "DuckDB"), (json{{"answer", "DuckDB"}}));
  EXPECT_FALSE(AnswerContent(question, "   "));
  EXPECT_EQ(*AnswerContent(Question{}, "1"), (json{{"answer", "1"}}));
}

TEST(UserRequestsTest, FormFieldsTakeTheirTypes) {
  EXPECT_EQ(*FieldValue({{"type", "string"}}, " hi "), json("hi"));
  EXPECT_EQ(*FieldValue({{"type", "boolean"}}, "Y"), json(true));
  EXPECT_EQ(*FieldValue({{"type", "boolean"}}, "no"), json(false));
  EXPECT_FALSE(FieldValue({{"type", "boolean"}}, "maybe"));
  EXPECT_EQ(*FieldValue({{"type", "integer"}}, "42"), json(42));
  EXPECT_FALSE(FieldValue({{"type", "integer"}}, "4.5"));
  EXPECT_EQ(*FieldValue({{"type", "number"}}, "4.5"), json(4.5));
  EXPECT_FALSE(FieldValue({{"type", "number"}}, "four"));
  const json choice = {{"type", "string"}, {"enum", {"red", "green"}}};
  EXPECT_EQ(*FieldValue(choice, "2"), json("green"));
  EXPECT_EQ(*FieldValue(choice, "red"), json("red"));
  EXPECT_FALSE(FieldValue(choice, "blue"));
  EXPECT_TRUE(FieldValue({{"type", "string"}}, "")->is_null());
}

TEST(UserRequestsTest, ElicitGoesToTheUserAndWithoutOneIsNoUser) {
  auto user = std::make_shared<FakeUser>();
  user->reply = Reply{Reply::Action::kAccept, json{{"answer", "yes"}}};
  HostMethods methods(user, std::make_shared<Next>());
  const CallContext context{-1, "ask_user"};
  auto answer = methods.Call("elicit", {{"message", "Go on?"}}, context);
  ASSERT_TRUE(answer);
  EXPECT_EQ(*answer, (json{{"action", "accept"}, {"content", {{"answer", "yes"}}}}));
  ASSERT_EQ(user->asked.size(), 1u);
  EXPECT_EQ(user->asked[0].tool, "ask_user");

  user->reply = Reply{Reply::Action::kDecline, {}};
  EXPECT_EQ(*methods.Call("elicit", {{"message", "Go on?"}}, context),
            json({{"action", "decline"}}));

  // A user who cannot answer, and no user at all: NO_USER, never an answer.
  user->reply = std::nullopt;
  HostMethods nobody(nullptr, nullptr);
  for (HostMethods* host : {&methods, &nobody}) {
    auto refused = host->Call("elicit", {{"message", "Go on?"}}, context);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, rpc_code::kNoUser);
    EXPECT_NE(refused.error().message.find("NO_USER"), std::string::npos);
  }

  auto bad = methods.Call("elicit", {{"options", {"a"}}}, context);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, rpc_code::kInvalidParams);
}

TEST(UserRequestsTest, ProgressShowsOneLineAndOtherMethodsGoOn) {
  auto user = std::make_shared<FakeUser>();
  HostMethods methods(user, std::make_shared<Next>());
  const CallContext context{-1, "build"};
  EXPECT_TRUE(methods.Call("progress", {{"message", "compiling 3/9\nsecond line"}}, context));
  EXPECT_TRUE(methods.Call("progress", {{"message", "  "}}, context));  // nothing to show
  EXPECT_EQ(user->progress, std::vector<std::string>{"build: compiling 3/9"});
  EXPECT_FALSE(methods.Call("progress", {{"message", 3}}, context));
  EXPECT_EQ(*methods.Call("subagent/start", json::object(), context),
            (json{{"handled", "subagent/start"}}));
  auto unknown = HostMethods(user, nullptr).Call("fly", json::object(), context);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, rpc_code::kMethodNotFound);
}

}  // namespace
}  // namespace ikigai::hostapi
