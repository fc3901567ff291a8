// A request built with the previous request's pieces must be exactly the
// request built from nothing, however the conversation changed in between.
#include "providers/wire_cache.h"

#include <gtest/gtest.h>

#include "providers/anthropic_provider.h"
#include "providers/openai_provider.h"

namespace ikigai::providers {
namespace {

Message User(std::string text) { return {Role::kUser, std::move(text), {}, {}}; }
Message Assistant(std::string text, std::vector<ToolCall> calls = {}) {
  return {Role::kAssistant, std::move(text), std::move(calls), {}};
}
Message Results(std::string id, std::string content) {
  return {Role::kToolResults, "", {}, {{std::move(id), "bash", std::move(content)}}};
}

// The conversation of a session, step by step: it grows, is compacted into
// one message, grows again, and an earlier message is changed in place.
std::vector<std::vector<Message>> Steps() {
  std::vector<std::vector<Message>> steps;
  std::vector<Message> c = {User("first")};
  steps.push_back(c);
  c.push_back(Assistant("", {{"call_1", "bash", R"({"command":"ls"})"}}));
  c.push_back(Results("call_1", R"({"tool_success":true})"));
  steps.push_back(c);
  c.push_back(Assistant("Done."));
  c.push_back(User("second"));
  steps.push_back(c);
  c = {User("[summary] of the above")};  // compacted
  steps.push_back(c);
  c.push_back(User("after the summary"));  // two user turns in a row
  steps.push_back(c);
  c.push_back(Assistant("ok"));
  c.push_back(User("x"));
  steps.push_back(c);
  c[2].text = "changed";  // same length, other text
  steps.push_back(c);
  return steps;
}

TEST(WireCache, ACachedOpenAiBodyIsTheBodyBuiltFromNothing) {
  WireCache cache;
  for (const auto& messages : Steps()) {
    TurnRequest request;
    request.model = "m";
    request.system = "s";
    request.messages = messages;
    EXPECT_EQ(OpenAiRequestBody(request, &cache), OpenAiRequestBody(request));
  }
}

TEST(WireCache, ACachedAnthropicBodyIsTheBodyBuiltFromNothing) {
  WireCache cache;
  for (const auto& messages : Steps()) {
    TurnRequest request;
    request.model = "m";
    request.system = "s";
    request.messages = messages;
    EXPECT_EQ(AnthropicRequestBody(request, &cache), AnthropicRequestBody(request));
  }
}

TEST(WireCache, APieceIsMadeOnceWhileItsMessagesAndVariantStay) {
  WireCache cache;
  int made = 0;
  const std::vector<Message> one = {User("a")};
  const auto make = [&] {
    ++made;
    return std::string("piece");
  };
  EXPECT_EQ(cache.Piece(0, one, 0, make), "piece");
  EXPECT_EQ(cache.Piece(0, one, 0, make), "piece");
  EXPECT_EQ(made, 1);
  cache.Piece(0, one, 1, make);  // another variant
  EXPECT_EQ(made, 2);
  const std::vector<Message> other = {User("b")};
  cache.Piece(0, other, 1, make);
  EXPECT_EQ(made, 3);
  cache.Keep(0);
  cache.Piece(0, other, 1, make);
  EXPECT_EQ(made, 4);
}

TEST(WireCache, MessagesJoinTheObject) {
  EXPECT_EQ(WithMessages(R"({"model":"m"})", "[]"), R"({"model":"m","messages":[]})");
  EXPECT_EQ(WithMessages("{}", "[1]"), R"({"messages":[1]})");
}

}  // namespace
}  // namespace ikigai::providers
