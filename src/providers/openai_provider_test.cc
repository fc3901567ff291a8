#include "providers/openai_provider.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "providers/testing/aimock_server.h"
#include "providers/testing/loopback_server.h"
#include "providers/testing/recording_sink.h"

namespace ikigai::providers {
namespace {

using nlohmann::json;
using testing::AimockServer;
using testing::RecordingSink;
using testing::SuiteAimock;
using Clock = std::chrono::steady_clock;

ToolSpec Tool(const std::string& name, const std::string& description, json parameters) {
  return ToolSpec{name, description, std::move(parameters)};
}

// A conversation after one round of two tool calls.
TurnRequest ConversationWithResults(const std::string& user_text) {
  TurnRequest r;
  r.model = "gpt-test";
  r.system = "You are ikigai. Use the tools.";
  r.max_tokens = 1024;
  r.tools = {Tool("glob", "Find files",
                  {{"type", "object"}, {"properties", {{"pattern", {{"type", "string"}}}}}}),
             Tool("grep", "Search files", {{"type", "object"}, {"properties", json::object()}})};
  r.messages.push_back({Role::kUser, user_text, {}, {}});
  r.messages.push_back({Role::kAssistant,
                        "",
                        {{"call_a", "glob", R"({"pattern":"**/*.cc"})"},
                         {"call_b", "grep", R"({"pattern":"TODO"})"}},
                        {}});
  r.messages.push_back({Role::kToolResults,
                        "",
                        {},
                        {{"call_a", "glob", R"({"tool_success":true,"result":{"files":["a.cc"]}})"},
                         {"call_b", "grep", R"({"tool_success":false,"error":"boom"})"}}});
  return r;
}

TEST(OpenAiRequestBodyTest, APlainPrompt) {
  TurnRequest r;
  r.model = "gpt-test";
  r.system = "Be brief.";
  r.max_tokens = 100;
  r.messages.push_back({Role::kUser, "hello", {}, {}});
  EXPECT_EQ(json::parse(OpenAiRequestBody(r)), json::parse(R"({
    "model": "gpt-test", "stream": true, "stream_options": {"include_usage": true},
    "max_tokens": 100,
    "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello"}]
  })"));
}

// OpenAI's reasoning models refuse max_tokens and take reasoning_effort;
// every other model keeps max_tokens and is not sent an effort.
TEST(OpenAiRequestBodyTest, ReasoningModelsGetMaxCompletionTokensAndTheEffort) {
  for (const char* model :
       {"o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini", "openai/o3"}) {
    TurnRequest r;
    r.model = model;
    r.max_tokens = 4000;
    r.reasoning_effort = "high";
    r.messages.push_back({Role::kUser, "think", {}, {}});
    const json body = json::parse(OpenAiRequestBody(r));
    EXPECT_EQ(body["max_completion_tokens"], 4000) << model;
    EXPECT_FALSE(body.contains("max_tokens")) << model;
    EXPECT_EQ(body["reasoning_effort"], "high") << model;
    EXPECT_TRUE(IsReasoningModel(model)) << model;
  }
  for (const char* model : {"gpt-4.1", "gpt-4o", "omni-local", "o", "llama3"}) {
    TurnRequest r;
    r.model = model;
    r.max_tokens = 4000;
    r.reasoning_effort = "high";
    r.messages.push_back({Role::kUser, "think", {}, {}});
    const json body = json::parse(OpenAiRequestBody(r));
    EXPECT_EQ(body["max_tokens"], 4000) << model;
    EXPECT_FALSE(body.contains("reasoning_effort")) << model;
    EXPECT_FALSE(IsReasoningModel(model)) << model;
  }
  TurnRequest plain;
  plain.model = "o3";
  plain.messages.push_back({Role::kUser, "think", {}, {}});
  EXPECT_FALSE(json::parse(OpenAiRequestBody(plain)).contains("reasoning_effort"))
      << "no effort configured: the provider's default";
}

TEST(OpenAiRequestBodyTest, NoSystemPromptNoSystemMessage) {
  TurnRequest r;
  r.messages.push_back({Role::kUser, "hello", {}, {}});
  const json body = json::parse(OpenAiRequestBody(r));
  EXPECT_EQ(body["messages"], json::parse(R"([{"role": "user", "content": "hello"}])"));
  EXPECT_FALSE(body.contains("tools"));
}

TEST(OpenAiRequestBodyTest, ToolCallsResultsAndTools) {
  TurnRequest r = ConversationWithResults("find");
  r.messages.push_back({Role::kAssistant, "Done.", {}, {}});
  r.messages.push_back({Role::kUser, "thanks", {}, {}});
  const json body = json::parse(OpenAiRequestBody(r));
  EXPECT_EQ(body["messages"], json::parse(R"([
    {"role": "system", "content": "You are ikigai. Use the tools."},
    {"role": "user", "content": "find"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_a", "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\":\"**/*.cc\"}"}},
      {"id": "call_b", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\":\"TODO\"}"}}]},
    {"role": "tool", "tool_call_id": "call_a", "content": "{\"tool_success\":true,\"result\":{\"files\":[\"a.cc\"]}}"},
    {"role": "tool", "tool_call_id": "call_b", "content": "{\"tool_success\":false,\"error\":\"boom\"}"},
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": "thanks"}
  ])"));
  EXPECT_EQ(body["tools"], json::parse(R"([
    {"type": "function", "function": {"name": "glob", "description": "Find files",
      "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "grep", "description": "Search files",
      "parameters": {"type": "object", "properties": {}}}}
  ])"));
}

TEST(OpenAiRequestBodyTest, AToolWithoutParametersGetsAnEmptyObjectSchema) {
  TurnRequest r;
  r.tools = {Tool("now", "The time", nullptr)};
  const json body = json::parse(OpenAiRequestBody(r));
  EXPECT_EQ(body["tools"][0]["function"]["parameters"],
            json::parse(R"({"type":"object","properties":{}})"));
}

TEST(OpenAiRequestBodyTest, InvalidUtf8IsReplacedNotThrown) {
  TurnRequest r;
  r.messages.push_back({Role::kUser, "bad \xff byte", {}, {}});
  EXPECT_EQ(json::parse(OpenAiRequestBody(r))["messages"][0]["content"], "bad \xEF\xBF\xBD byte");
}

// Against aimock: the requests ikigai sends, the answers it reads.
class OpenAiAimockTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);  // fresh sequences and journal
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
  }

  static ProviderSettings Settings() {
    ProviderSettings s;
    s.kind = "openai";
    s.base_url = aimock_->openai_base_url() + "/";  // a trailing slash is harmless
    s.api_key = AimockServer::kApiKey;
    s.stall_timeout_ms = 10000;
    return s;
  }
  static TurnRequest Prompt(const std::string& text) {
    TurnRequest r;
    r.model = "gpt-test";
    r.system = "You are ikigai.";
    r.messages.push_back({Role::kUser, text, {}, {}});
    return r;
  }
  Result<Turn, ProviderError> Run(const TurnRequest& request,
                                  ProviderSettings settings = Settings()) {
    OpenAiProvider provider(std::move(settings));
    const std::atomic<bool> cancel{false};
    return provider.StreamTurn(request, recorder_.sink(), cancel);
  }
  // The last request aimock received.
  static json LastRequest() {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    if (!journal || journal->empty()) return json();
    return journal->back();
  }

  static constexpr const char* kFixtures = R"({"fixtures": [
    {"match": {"userMessage": "oa-plain"},
     "response": {"content": "The quick brown fox jumps over the lazy dog, twice over.",
                  "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}},
    {"match": {"userMessage": "oa-one-tool"}, "chunkSize": 3,
     "response": {"toolCalls": [{"id": "call_one", "name": "bash",
                                 "arguments": {"command": "ls -la \"my dir\"", "timeout_seconds": 5}}]}},
    {"match": {"userMessage": "oa-two-tools"},
     "response": {"toolCalls": [
       {"id": "call_a", "name": "glob", "arguments": {"pattern": "**/*.cc"}},
       {"id": "call_b", "name": "grep", "arguments": {"pattern": "TODO", "glob": "*.h"}}]}},
    {"match": {"userMessage": "oa-text-and-tool"},
     "response": {"content": "Let me look.", "toolCalls": [{"id": "call_t", "name": "file_read", "arguments": {"path": "README.md"}}]}},
    {"match": {"toolCallId": "call_b"}, "response": {"content": "Found a.cc; grep failed."}},
    {"match": {"userMessage": "oa-limit", "sequenceIndex": 0},
     "response": {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}, "status": 429, "retryAfter": 1}},
    {"match": {"userMessage": "oa-limit", "sequenceIndex": 1}, "response": {"content": "After the wait."}},
    {"match": {"userMessage": "oa-unavailable", "sequenceIndex": 0},
     "response": {"error": {"message": "The engine is overloaded", "type": "server_error"}, "status": 503}},
    {"match": {"userMessage": "oa-unavailable", "sequenceIndex": 1}, "response": {"content": "Back again."}},
    {"match": {"userMessage": "oa-cut"}, "truncateAfterChunks": 3, "latency": 10,
     "response": {"content": "This answer is long enough to be cut off after a few chunks of text."}},
    {"match": {"userMessage": "oa-malformed"}, "chaos": {"malformedRate": 1},
     "response": {"content": "never seen"}}
  ]})";

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  RecordingSink recorder_;
};

TEST_F(OpenAiAimockTest, APlainAnswerStreamsInPieces) {
  auto turn = Run(Prompt("oa-plain"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "The quick brown fox jumps over the lazy dog, twice over.");
  EXPECT_EQ(recorder_.text(), turn->text);
  EXPECT_GE(recorder_.texts.size(), 3u);
  EXPECT_TRUE(turn->tool_calls.empty());
  EXPECT_EQ(turn->finish_reason, "stop");
  EXPECT_EQ(turn->usage.input_tokens, 11);
  EXPECT_EQ(turn->usage.output_tokens, 7);

  const json request = LastRequest();
  EXPECT_EQ(request["path"], "/v1/chat/completions");
  EXPECT_EQ(request["body"]["model"], "gpt-test");
  EXPECT_EQ(request["body"]["stream"], true);
  EXPECT_EQ(request["body"]["stream_options"]["include_usage"], true);
  EXPECT_EQ(request["body"]["messages"][0],
            json::parse(R"({"role":"system","content":"You are ikigai."})"));
}

TEST_F(OpenAiAimockTest, OneToolCallArrivesWhole) {
  auto turn = Run(Prompt("oa-one-tool"));
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].id, "call_one");
  EXPECT_EQ(turn->tool_calls[0].name, "bash");
  EXPECT_EQ(turn->tool_calls[0].arguments,
            R"({"command":"ls -la \"my dir\"","timeout_seconds":5})");
  EXPECT_EQ(turn->finish_reason, "tool_calls");
  EXPECT_EQ(turn->text, "");
  ASSERT_EQ(recorder_.calls.size(), 1u);
  EXPECT_EQ(recorder_.calls[0].arguments, turn->tool_calls[0].arguments);
}

TEST_F(OpenAiAimockTest, TwoToolCallsInOneTurnKeepTheirOrder) {
  auto turn = Run(Prompt("oa-two-tools"));
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 2u);
  EXPECT_EQ(turn->tool_calls[0].id, "call_a");
  EXPECT_EQ(turn->tool_calls[0].name, "glob");
  EXPECT_EQ(turn->tool_calls[0].arguments, R"({"pattern":"**/*.cc"})");
  EXPECT_EQ(turn->tool_calls[1].id, "call_b");
  EXPECT_EQ(turn->tool_calls[1].name, "grep");
  EXPECT_EQ(turn->tool_calls[1].arguments, R"({"pattern":"TODO","glob":"*.h"})");
  ASSERT_EQ(recorder_.calls.size(), 2u);
  EXPECT_EQ(recorder_.calls[1].id, "call_b");
}

TEST_F(OpenAiAimockTest, TextAndAToolCallInOneTurn) {
  auto turn = Run(Prompt("oa-text-and-tool"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Let me look.");
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].arguments, R"({"path":"README.md"})");
}

TEST_F(OpenAiAimockTest, ToolResultsGoBackAttachedToTheirCalls) {
  auto turn = Run(ConversationWithResults("oa-results"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Found a.cc; grep failed.");

  const json body = LastRequest()["body"];
  EXPECT_EQ(body["messages"][0],
            json::parse(R"({"role":"system","content":"You are ikigai. Use the tools."})"));
  const json& assistant = body["messages"][2];
  EXPECT_EQ(assistant["tool_calls"][0]["id"], "call_a");
  EXPECT_EQ(assistant["tool_calls"][1]["id"], "call_b");
  EXPECT_EQ(body["messages"][3]["role"], "tool");
  EXPECT_EQ(body["messages"][3]["tool_call_id"], "call_a");
  EXPECT_EQ(body["messages"][3]["content"], R"({"tool_success":true,"result":{"files":["a.cc"]}})");
  EXPECT_EQ(body["messages"][4]["tool_call_id"], "call_b");
  EXPECT_EQ(body["messages"][4]["content"], R"({"tool_success":false,"error":"boom"})");
  ASSERT_EQ(body["tools"].size(), 2u);
  EXPECT_EQ(body["tools"][0]["type"], "function");
  EXPECT_EQ(body["tools"][0]["function"]["name"], "glob");
  EXPECT_EQ(body["tools"][0]["function"]["description"], "Find files");
  EXPECT_EQ(body["tools"][0]["function"]["parameters"]["properties"]["pattern"]["type"], "string");
  EXPECT_EQ(body["max_tokens"], 1024);
}

TEST_F(OpenAiAimockTest, ARateLimitIsRetriedAfterTheTimeTheServerAsks) {
  const auto start = Clock::now();
  auto turn = Run(Prompt("oa-limit"));
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "After the wait.");
  ASSERT_EQ(recorder_.retries.size(), 1u);
  EXPECT_EQ(recorder_.retries[0], "rate limited (HTTP 429: Rate limit reached)");
  EXPECT_EQ(recorder_.waits[0], std::chrono::seconds(1));  // Retry-After: 1, not the 0.5 s backoff
  EXPECT_GE(took, 0.95);
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(aimock_->Journal()->size(), 2u);
}

TEST_F(OpenAiAimockTest, AServerErrorIsRetriedWithBackoff) {
  auto turn = Run(Prompt("oa-unavailable"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Back again.");
  ASSERT_EQ(recorder_.waits.size(), 1u);
  EXPECT_EQ(recorder_.waits[0], std::chrono::milliseconds(500));
}

TEST_F(OpenAiAimockTest, AStreamCutOffMidwayIsANetworkError) {
  auto turn = Run(Prompt("oa-cut"));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_TRUE(
      turn.error().message.starts_with("the connection closed before the answer was complete"))
      << turn.error().message;
  EXPECT_EQ(recorder_.text(), "This answer is long ");  // the chunks before the cut were shown
}

TEST_F(OpenAiAimockTest, AMalformedAnswerIsAProtocolError) {
  auto turn = Run(Prompt("oa-malformed"));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kProtocol);
  EXPECT_NE(turn.error().message.find("malformed JSON"), std::string::npos) << turn.error().message;
}

TEST_F(OpenAiAimockTest, AWrongKeyIsAnAuthErrorNamingTheVariable) {
  ProviderSettings settings = Settings();
  settings.api_key = "sk-wrong";
  auto turn = Run(Prompt("oa-plain"), settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kAuth);
  EXPECT_EQ(turn.error().message,
            "the server refused the API key (HTTP 401: Invalid API key); set OPENAI_API_KEY to a "
            "valid key");
}

TEST_F(OpenAiAimockTest, OneProviderServesTurnsOneAfterAnother) {
  OpenAiProvider provider(Settings());
  const std::atomic<bool> cancel{false};
  for (int i = 0; i < 3; ++i) {
    auto turn = provider.StreamTurn(Prompt("oa-plain"), StreamSink{}, cancel);
    ASSERT_TRUE(turn) << turn.error().message;
    EXPECT_EQ(turn->text, "The quick brown fox jumps over the lazy dog, twice over.");
  }
}

// Scripted streams, for what aimock does not send.
TEST(OpenAiStreamTest, SendsTheKeyAndReadsFragmentsOfSeveralCallsInterleaved) {
  const std::string stream =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c0\","
      "\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"comm\"}},{\"index\":1,\"id\":\"c1\","
      "\"function\":{\"name\":\"glob\",\"arguments\":\"\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
      "\"function\":{\"arguments\":\"{}\"}},{\"index\":0,\"function\":{\"arguments\":\"and\\\":"
      "\\\"ls\\\"}\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}\n\n"
      "data: [DONE]\n\n";
  testing::LoopbackServer server({testing::EventStreamHead() + stream});
  ProviderSettings settings;
  settings.kind = "openai";
  settings.base_url = server.url() + "/v1";
  settings.api_key = "sk-123";
  OpenAiProvider provider(settings);
  const std::atomic<bool> cancel{false};
  auto turn = provider.StreamTurn(TurnRequest{}, StreamSink{}, cancel);
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 2u);
  EXPECT_EQ(turn->tool_calls[0].arguments, R"({"command":"ls"})");
  EXPECT_EQ(turn->tool_calls[1].id, "c1");
  EXPECT_EQ(turn->tool_calls[1].arguments, "{}");
  EXPECT_EQ(turn->usage.output_tokens, 9);
  const std::string request = server.last_request();
  EXPECT_TRUE(request.starts_with("POST /v1/chat/completions HTTP/1.1\r\n")) << request;
  EXPECT_NE(request.find("Authorization: Bearer sk-123\r\n"), std::string::npos) << request;
  EXPECT_NE(request.find("Content-Type: application/json\r\n"), std::string::npos) << request;
}

TEST(OpenAiStreamTest, AnErrorInsideTheStreamIsAServerError) {
  testing::LoopbackServer server(
      {testing::EventStreamHead() +
       "data: {\"error\":{\"message\":\"context length exceeded\"}}\n\n"});
  ProviderSettings settings;
  settings.base_url = server.url();
  settings.api_key = "k";
  OpenAiProvider provider(settings);
  const std::atomic<bool> cancel{false};
  auto turn = provider.StreamTurn(TurnRequest{}, StreamSink{}, cancel);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kServer);
  EXPECT_EQ(turn.error().message,
            "the server reported an error in the stream: context length exceeded");
}

TEST(OpenAiStreamTest, AServerFailureInsideTheStreamIsTriedAgain) {
  testing::LoopbackServer server(std::vector<testing::ScriptedReply>{
      {testing::EventStreamHead() +
       "data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n"},
      {testing::EventStreamHead() +
       "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},"
       "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"}});
  ProviderSettings settings;
  settings.base_url = server.url();
  settings.api_key = "k";
  OpenAiProvider provider(settings);
  const std::atomic<bool> cancel{false};
  auto turn = provider.StreamTurn(TurnRequest{}, StreamSink{}, cancel);
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "ok");
  EXPECT_EQ(server.requests(), 2);
}

TEST(OpenAiStreamTest, AServerThatClosesAfterTheFinishReasonWithoutDoneIsForgiven) {
  testing::LoopbackServer server({testing::EventStreamHead() +
                                  "data: "
                                  "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},"
                                  "\"finish_reason\":\"stop\"}]}\n\n"});
  ProviderSettings settings;
  settings.base_url = server.url();
  settings.api_key = "k";
  OpenAiProvider provider(settings);
  const std::atomic<bool> cancel{false};
  auto turn = provider.StreamTurn(TurnRequest{}, StreamSink{}, cancel);
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "ok");
}

}  // namespace
}  // namespace ikigai::providers
