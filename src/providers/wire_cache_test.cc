// A request built with the previous request's pieces must be exactly the
// request built from nothing, however the conversation changed in between.
#include "providers/wire_cache.h"

#include <gtest/gtest.h>

#include "providers/anthropic_provider.h"
#include "providers/gemini_provider.h"
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
  c.push_back(Assistant(""));  // an empty turn, left out by Gemini
  c.push_back(User("y"));
  steps.push_back(c);
  c.push_back(Assistant("", {{"call_2", "bash", R"({"command":"pwd"})"}}));
  c.push_back(Results("call_2", "not JSON"));
  steps.push_back(c);
  return steps;
}

// Every step's body made with the cache kept from the step before equals
// the body made without one.
void ExpectCachedBodiesAreFresh(std::string (*body)(const TurnRequest&, WireCache*)) {
  WireCache cache;
  for (const auto& messages : Steps()) {
    TurnRequest request;
    request.model = "m";
    request.system = "s";
    request.messages = messages;
    EXPECT_EQ(body(request, &cache), body(request, nullptr));
  }
}

TEST(WireCache, ACachedOpenAiBodyIsTheBodyBuiltFromNothing) {
  ExpectCachedBodiesAreFresh(&OpenAiRequestBody);
}

TEST(WireCache, ACachedAnthropicBodyIsTheBodyBuiltFromNothing) {
  ExpectCachedBodiesAreFresh(&AnthropicRequestBody);
}

TEST(WireCache, ACachedGeminiBodyIsTheBodyBuiltFromNothing) {
  ExpectCachedBodiesAreFresh(&GeminiRequestBody);
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
  EXPECT_EQ(WithArray(R"({"model":"m"})", "messages", "", ""), R"({"model":"m","messages":[]})");
  EXPECT_EQ(WithArray("{}", "messages", "", "1"), R"({"messages":[1]})");
  EXPECT_EQ(WithArray("{}", "messages", "0", "1,2"), R"({"messages":[0,1,2]})");
  EXPECT_EQ(WithArray("{}", "messages", "0", ""), R"({"messages":[0]})");
}

TEST(WireCache, JoinedHoldsThePiecesKeptWithoutEmptyOnes) {
  WireCache cache;
  const std::vector<Message> a = {User("a")}, b = {User("b")}, c = {User("c")};
  cache.Piece(0, a, 0, [] { return std::string("A"); });
  cache.Piece(1, b, 0, [] { return std::string(); });  // a piece with no text
  cache.Piece(2, c, 0, [] { return std::string("C"); });
  EXPECT_EQ(cache.Joined(), "A,C");
  EXPECT_EQ(cache.Piece(2, c, 0, [] { return std::string("never made"); }), "C");
  cache.Keep(1);
  EXPECT_EQ(cache.Joined(), "A");
  cache.Piece(1, c, 0, [] { return std::string("C2"); });
  EXPECT_EQ(cache.Joined(), "A,C2");
  cache.Piece(0, b, 0, [] { return std::string("B"); });  // a change drops what follows
  EXPECT_EQ(cache.Joined(), "B");
  cache.Keep(0);
  EXPECT_EQ(cache.Joined(), "");
}

}  // namespace
}  // namespace ikigai::providers
