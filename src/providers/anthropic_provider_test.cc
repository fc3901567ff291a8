#include "providers/anthropic_provider.h"

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

// A conversation after one round of two tool calls.
TurnRequest ConversationWithResults(const std::string& user_text) {
  TurnRequest r;
  r.model = "claude-test";
  r.system = "You are ikigai. Use the tools.";
  r.max_tokens = 2048;
  r.tools = {
      ToolSpec{"glob",
               "Find files",
               {{"type", "object"}, {"properties", {{"pattern", {{"type", "string"}}}}}}},
      ToolSpec{"grep", "Search files", {{"type", "object"}, {"properties", json::object()}}}};
  r.messages.push_back({Role::kUser, user_text, {}, {}});
  r.messages.push_back({Role::kAssistant,
                        "I will search.",
                        {{"toolu_a", "glob", R"({"pattern":"**/*.cc"})"},
                         {"toolu_b", "grep", R"({"pattern":"TODO"})"}},
                        {}});
  r.messages.push_back(
      {Role::kToolResults,
       "",
       {},
       {{"toolu_a", "glob", R"({"tool_success":true,"result":{"files":["a.cc"]}})"},
        {"toolu_b", "grep", R"({"tool_success":false,"error":"boom"})"}}});
  return r;
}

TEST(AnthropicRequestBodyTest, APlainPrompt) {
  TurnRequest r;
  r.model = "claude-test";
  r.system = "Be brief.";
  r.max_tokens = 100;
  r.messages.push_back({Role::kUser, "hello", {}, {}});
  EXPECT_EQ(json::parse(AnthropicRequestBody(r)), json::parse(R"({
    "model": "claude-test", "max_tokens": 100, "stream": true,
    "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
    "messages": [{"role": "user", "content": [
      {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}]}]
  })"));
}

TEST(AnthropicRequestBodyTest, NoSystemPromptNoSystemField) {
  TurnRequest r;
  r.messages.push_back({Role::kUser, "hello", {}, {}});
  const json body = json::parse(AnthropicRequestBody(r));
  EXPECT_FALSE(body.contains("system"));
  EXPECT_FALSE(body.contains("tools"));
}

TEST(AnthropicRequestBodyTest, ToolUseBlocksToolResultBlocksAndTools) {
  TurnRequest r = ConversationWithResults("find");
  r.messages.push_back({Role::kAssistant, "Done.", {}, {}});
  const json body = json::parse(AnthropicRequestBody(r));
  EXPECT_EQ(body["system"][0]["text"], "You are ikigai. Use the tools.");
  EXPECT_EQ(body["messages"], json::parse(R"([
    {"role": "user", "content": "find"},
    {"role": "assistant", "content": [
      {"type": "text", "text": "I will search."},
      {"type": "tool_use", "id": "toolu_a", "name": "glob", "input": {"pattern": "**/*.cc"}},
      {"type": "tool_use", "id": "toolu_b", "name": "grep", "input": {"pattern": "TODO"}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_a", "content": "{\"tool_success\":true,\"result\":{\"files\":[\"a.cc\"]}}"},
      {"type": "tool_result", "tool_use_id": "toolu_b", "content": "{\"tool_success\":false,\"error\":\"boom\"}"}]},
    {"role": "assistant", "content": [
      {"type": "text", "text": "Done.", "cache_control": {"type": "ephemeral"}}]}
  ])"));
  EXPECT_EQ(body["tools"], json::parse(R"([
    {"name": "glob", "description": "Find files",
     "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}}},
    {"name": "grep", "description": "Search files", "input_schema": {"type": "object", "properties": {}},
     "cache_control": {"type": "ephemeral"}}
  ])"));
}

// Prompt caching: a breakpoint after the tools, after the system prompt and
// on the latest message (here a turn's results), and nowhere else, so the
// next request reads all of this from the cache.
TEST(AnthropicRequestBodyTest, CacheBreakpointsOnToolsSystemAndTheLatestMessage) {
  TurnRequest r = ConversationWithResults("find");
  const json body = json::parse(AnthropicRequestBody(r));
  const std::string text = body.dump();
  std::size_t breakpoints = 0;
  for (auto at = text.find("cache_control"); at != std::string::npos;
       at = text.find("cache_control", at + 1)) {
    ++breakpoints;
  }
  EXPECT_EQ(breakpoints, 3u) << text;
  EXPECT_TRUE(body["tools"].back().contains("cache_control"));
  EXPECT_TRUE(body["system"].back().contains("cache_control"));
  const json& last = body["messages"].back()["content"].back();
  EXPECT_EQ(last["type"], "tool_result");
  EXPECT_EQ(last["cache_control"], json::parse(R"({"type": "ephemeral"})"));
}

TEST(AnthropicRequestBodyTest, InvalidArgumentsBecomeAnEmptyInput) {
  TurnRequest r;
  r.messages.push_back({Role::kAssistant,
                        "",
                        {{"toolu_x", "bash", "{\"command\": \"ls"}, {"toolu_y", "bash", "[1]"}},
                        {}});
  const json body = json::parse(AnthropicRequestBody(r));
  EXPECT_EQ(body["messages"][0]["content"][0]["input"], json::object());
  EXPECT_EQ(body["messages"][0]["content"][1]["input"], json::object());
  EXPECT_EQ(body["messages"][0]["content"].size(), 2u);  // no empty text block
}

TEST(AnthropicRequestBodyTest, AnEmptyAssistantTurnIsLeftOut) {
  TurnRequest r;
  r.messages.push_back({Role::kUser, "a", {}, {}});
  r.messages.push_back({Role::kAssistant, "", {}, {}});
  r.messages.push_back({Role::kUser, "b", {}, {}});
  // What is left is two user turns in a row: one message, as the roles must
  // alternate.
  const json messages = json::parse(AnthropicRequestBody(r))["messages"];
  ASSERT_EQ(messages.size(), 1u) << messages;
  EXPECT_EQ(messages[0]["content"][0]["text"], "a");
  EXPECT_EQ(messages[0]["content"][1]["text"], "b");
}

// Against aimock: the requests ikigai sends, the answers it reads. aimock's
// journal shows Anthropic requests translated to the OpenAI shape (system
// message, tool_calls, tool messages), which is how they are checked here;
// the wire format itself is checked above and by a scripted server below.
class AnthropicAimockTest : public ::testing::Test {
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
    s.kind = "anthropic";
    s.base_url = aimock_->anthropic_base_url();
    s.api_key = AimockServer::kApiKey;
    s.stall_timeout_ms = 10000;
    return s;
  }
  static TurnRequest Prompt(const std::string& text) {
    TurnRequest r;
    r.model = "claude-test";
    r.system = "You are ikigai.";
    r.messages.push_back({Role::kUser, text, {}, {}});
    return r;
  }
  Result<Turn, ProviderError> Run(const TurnRequest& request,
                                  ProviderSettings settings = Settings()) {
    AnthropicProvider provider(std::move(settings));
    const std::atomic<bool> cancel{false};
    return provider.StreamTurn(request, recorder_.sink(), cancel);
  }
  static json LastRequest() {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    if (!journal || journal->empty()) return json();
    return journal->back();
  }

  static constexpr const char* kFixtures = R"({"fixtures": [
    {"match": {"userMessage": "an-plain"},
     "response": {"content": "Claude answers in a stream of several pieces.",
                  "usage": {"prompt_tokens": 13, "completion_tokens": 8, "total_tokens": 21}}},
    {"match": {"userMessage": "an-one-tool"}, "chunkSize": 3,
     "response": {"toolCalls": [{"id": "toolu_one", "name": "bash",
                                 "arguments": {"command": "ls -la \"my dir\"", "timeout_seconds": 5}}]}},
    {"match": {"userMessage": "an-two-tools"},
     "response": {"toolCalls": [
       {"id": "toolu_a", "name": "glob", "arguments": {"pattern": "**/*.cc"}},
       {"id": "toolu_b", "name": "grep", "arguments": {"pattern": "TODO", "glob": "*.h"}}]}},
    {"match": {"toolCallId": "toolu_b"}, "response": {"content": "Found a.cc; grep failed."}},
    {"match": {"userMessage": "an-limit", "sequenceIndex": 0},
     "response": {"error": {"message": "Number of requests has exceeded your rate limit", "type": "rate_limit_error"}, "status": 429, "retryAfter": 1}},
    {"match": {"userMessage": "an-limit", "sequenceIndex": 1}, "response": {"content": "After the wait."}},
    {"match": {"userMessage": "an-overloaded", "sequenceIndex": 0},
     "response": {"error": {"message": "Overloaded", "type": "overloaded_error"}, "status": 529}},
    {"match": {"userMessage": "an-overloaded", "sequenceIndex": 1}, "response": {"content": "Back again."}},
    {"match": {"userMessage": "an-cut"}, "truncateAfterChunks": 4, "latency": 10,
     "response": {"content": "This answer is long enough to be cut off after a few chunks of text."}},
    {"match": {"userMessage": "an-malformed"}, "chaos": {"malformedRate": 1},
     "response": {"content": "never seen"}}
  ]})";

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  RecordingSink recorder_;
};

TEST_F(AnthropicAimockTest, APlainAnswerStreamsInPieces) {
  auto turn = Run(Prompt("an-plain"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Claude answers in a stream of several pieces.");
  EXPECT_EQ(recorder_.text(), turn->text);
  EXPECT_GE(recorder_.texts.size(), 3u);
  EXPECT_EQ(turn->finish_reason, "end_turn");
  EXPECT_EQ(turn->usage.input_tokens, 13);
  EXPECT_EQ(turn->usage.output_tokens, 8);

  const json request = LastRequest();
  EXPECT_EQ(request["path"], "/v1/messages");
  EXPECT_EQ(request["headers"]["anthropic-version"], "2023-06-01");
  EXPECT_EQ(request["body"]["model"], "claude-test");
  EXPECT_EQ(request["body"]["stream"], true);
  EXPECT_EQ(request["body"]["messages"][0],
            json::parse(R"({"role":"system","content":"You are ikigai."})"));
}

TEST_F(AnthropicAimockTest, OneToolCallArrivesWhole) {
  auto turn = Run(Prompt("an-one-tool"));
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].id, "toolu_one");
  EXPECT_EQ(turn->tool_calls[0].name, "bash");
  EXPECT_EQ(turn->tool_calls[0].arguments,
            R"({"command":"ls -la \"my dir\"","timeout_seconds":5})");
  EXPECT_EQ(turn->finish_reason, "tool_use");
  ASSERT_EQ(recorder_.calls.size(), 1u);
  EXPECT_EQ(recorder_.calls[0].arguments, turn->tool_calls[0].arguments);
}

TEST_F(AnthropicAimockTest, TwoToolCallsInOneTurnKeepTheirOrder) {
  auto turn = Run(Prompt("an-two-tools"));
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 2u);
  EXPECT_EQ(turn->tool_calls[0].id, "toolu_a");
  EXPECT_EQ(turn->tool_calls[0].name, "glob");
  EXPECT_EQ(turn->tool_calls[0].arguments, R"({"pattern":"**/*.cc"})");
  EXPECT_EQ(turn->tool_calls[1].id, "toolu_b");
  EXPECT_EQ(turn->tool_calls[1].name, "grep");
  EXPECT_EQ(turn->tool_calls[1].arguments, R"({"pattern":"TODO","glob":"*.h"})");
  ASSERT_EQ(recorder_.calls.size(), 2u);
  EXPECT_EQ(recorder_.calls[0].id, "toolu_a");
}

TEST_F(AnthropicAimockTest, ToolResultsGoBackAttachedToTheirCalls) {
  auto turn = Run(ConversationWithResults("an-results"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Found a.cc; grep failed.");

  const json request = LastRequest();
  const json& body = request["body"];
  EXPECT_EQ(body["messages"][0],
            json::parse(R"({"role":"system","content":"You are ikigai. Use the tools."})"));
  const json& assistant = body["messages"][2];
  EXPECT_EQ(assistant["content"], "I will search.");
  EXPECT_EQ(assistant["tool_calls"][0]["id"], "toolu_a");
  EXPECT_EQ(assistant["tool_calls"][0]["function"]["arguments"], R"({"pattern":"**/*.cc"})");
  EXPECT_EQ(assistant["tool_calls"][1]["id"], "toolu_b");
  EXPECT_EQ(body["messages"][3]["tool_call_id"], "toolu_a");
  EXPECT_EQ(body["messages"][3]["content"], R"({"tool_success":true,"result":{"files":["a.cc"]}})");
  EXPECT_EQ(body["messages"][4]["tool_call_id"], "toolu_b");
  EXPECT_EQ(body["messages"][4]["content"], R"({"tool_success":false,"error":"boom"})");
  ASSERT_EQ(body["tools"].size(), 2u);
  EXPECT_EQ(body["tools"][1]["function"]["name"], "grep");
  EXPECT_EQ(body["tools"][1]["function"]["description"], "Search files");
  EXPECT_EQ(body["tools"][0]["function"]["parameters"]["properties"]["pattern"]["type"], "string");
  EXPECT_EQ(body["max_tokens"], 2048);
}

TEST_F(AnthropicAimockTest, ARateLimitIsRetriedAfterTheTimeTheServerAsks) {
  const auto start = Clock::now();
  auto turn = Run(Prompt("an-limit"));
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "After the wait.");
  ASSERT_EQ(recorder_.retries.size(), 1u);
  EXPECT_EQ(recorder_.retries[0],
            "rate limited (HTTP 429: Number of requests has exceeded your rate limit)");
  EXPECT_EQ(recorder_.waits[0], std::chrono::seconds(1));
  EXPECT_GE(took, 0.95);
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(aimock_->Journal()->size(), 2u);
}

TEST_F(AnthropicAimockTest, OverloadedIsRetriedWithBackoff) {
  auto turn = Run(Prompt("an-overloaded"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Back again.");
  ASSERT_EQ(recorder_.retries.size(), 1u);
  EXPECT_EQ(recorder_.retries[0], "server error (HTTP 529: Overloaded)");
  EXPECT_EQ(recorder_.waits[0], std::chrono::milliseconds(500));
}

TEST_F(AnthropicAimockTest, AStreamCutOffMidwayIsANetworkError) {
  auto turn = Run(Prompt("an-cut"));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_TRUE(
      turn.error().message.starts_with("the connection closed before the answer was complete"))
      << turn.error().message;
  EXPECT_EQ(recorder_.text(), "This answer is long ");  // the chunks before the cut were shown
}

TEST_F(AnthropicAimockTest, AMalformedAnswerIsAProtocolError) {
  auto turn = Run(Prompt("an-malformed"));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kProtocol);
  EXPECT_NE(turn.error().message.find("malformed JSON"), std::string::npos) << turn.error().message;
}

TEST_F(AnthropicAimockTest, AWrongKeyIsAnAuthErrorNamingTheVariable) {
  ProviderSettings settings = Settings();
  settings.api_key = "sk-ant-wrong";
  auto turn = Run(Prompt("an-plain"), settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kAuth);
  EXPECT_EQ(turn.error().message,
            "the server refused the API key (HTTP 401: Invalid API key); set ANTHROPIC_API_KEY to "
            "a valid key");
}

// Scripted streams, for what aimock does not send.
Result<Turn, ProviderError> RunScripted(const std::string& stream, RecordingSink& recorder,
                                        std::string* request = nullptr,
                                        const TurnRequest& turn_request = TurnRequest{}) {
  testing::LoopbackServer server({testing::EventStreamHead() + stream});
  ProviderSettings settings;
  settings.base_url = server.url() + "/";
  settings.api_key = "sk-ant-123";
  AnthropicProvider provider(settings);
  const std::atomic<bool> cancel{false};
  auto turn = provider.StreamTurn(turn_request, recorder.sink(), cancel);
  if (request) *request = server.last_request();
  return turn;
}

constexpr const char* kRecordedStream =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"role\":\"assistant\","
    "\"content\":[],\"usage\":{\"input_tokens\":400,\"cache_read_input_tokens\":72,\"output_"
    "tokens\":2}}}\n\n"
    "event: content_block_start\n"
    "data: "
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\","
    "\"thinking\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: "
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
    "\"thinking\":\"hmm\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\n"
    "data: "
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":"
    "\"\"}}\n\n"
    "event: ping\n"
    "data: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\n"
    "data: "
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":"
    "\"Checking\"}}\n\n"
    "event: content_block_delta\n"
    "data: "
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\" "
    "now.\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: content_block_start\n"
    "data: "
    "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":"
    "\"toolu_01\",\"name\":\"bash\",\"input\":{}}}\n\n"
    "event: content_block_delta\n"
    "data: "
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: "
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"{\\\"command\\\": \\\"git st\"}}\n\n"
    "event: content_block_delta\n"
    "data: "
    "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"atus\\\"}\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
    "event: message_delta\n"
    "data: "
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},"
    "\"usage\":{\"output_tokens\":89}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n";

TEST(AnthropicStreamTest, ARecordedStreamWithThinkingTextAndATool) {
  RecordingSink recorder;
  std::string request;
  TurnRequest turn_request = ConversationWithResults("find");
  auto turn = RunScripted(kRecordedStream, recorder, &request, turn_request);
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Checking now.");
  EXPECT_EQ(recorder.texts, (std::vector<std::string>{"Checking", " now."}));
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].id, "toolu_01");
  EXPECT_EQ(turn->tool_calls[0].arguments, R"({"command": "git status"})");
  EXPECT_EQ(turn->finish_reason, "tool_use");
  // Cache reads are counted apart from plain input.
  EXPECT_EQ(turn->usage.input_tokens, 400);
  EXPECT_EQ(turn->usage.cache_read_tokens, 72);
  EXPECT_EQ(turn->usage.TotalInput(), 472);
  EXPECT_EQ(turn->usage.output_tokens, 89);

  // The request on the wire: path, headers, and the body exactly as built.
  EXPECT_TRUE(request.starts_with("POST /v1/messages HTTP/1.1\r\n")) << request;
  EXPECT_NE(request.find("x-api-key: sk-ant-123\r\n"), std::string::npos) << request;
  EXPECT_NE(request.find("anthropic-version: 2023-06-01\r\n"), std::string::npos) << request;
  EXPECT_NE(request.find("Content-Type: application/json\r\n"), std::string::npos) << request;
  const std::string body = request.substr(request.find("\r\n\r\n") + 4);
  EXPECT_EQ(json::parse(body), json::parse(AnthropicRequestBody(turn_request)));
}

TEST(AnthropicStreamTest, AnOverloadedErrorEventIsRateLimited) {
  RecordingSink recorder;
  auto turn = RunScripted(
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"
      "event: error\ndata: "
      "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"
      "\n\n",
      recorder);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kRateLimited);
  // Nothing was shown, so it was tried again (and overloaded every time).
  EXPECT_EQ(turn.error().message,
            "the server reported an error in the stream (overloaded_error): Overloaded after 3 "
            "retries");
}

TEST(AnthropicStreamTest, AnOverloadedStreamIsTriedAgainAndTheAnswerShownOnce) {
  testing::LoopbackServer server(std::vector<testing::ScriptedReply>{
      {testing::EventStreamHead() +
       "event: message_start\ndata: "
       "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"
       "event: error\ndata: "
       "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":"
       "\"Overloaded\"}}\n\n"},
      {testing::EventStreamHead() + kRecordedStream}});
  ProviderSettings settings;
  settings.base_url = server.url() + "/";
  settings.api_key = "sk-ant-123";
  AnthropicProvider provider(settings);
  RecordingSink recorder;
  const std::atomic<bool> cancel{false};
  auto turn = provider.StreamTurn(TurnRequest{}, recorder.sink(), cancel);
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(server.requests(), 2);
  EXPECT_EQ(turn->text, "Checking now.");
  EXPECT_EQ(recorder.texts, (std::vector<std::string>{"Checking", " now."}));
  EXPECT_EQ(turn->tool_calls.size(), 1u);
}

TEST(AnthropicStreamTest, AnotherErrorEventIsAServerError) {
  RecordingSink recorder;
  auto turn = RunScripted(
      "event: error\ndata: "
      "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal error\"}}\n\n",
      recorder);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kServer);
}

// The server's own failure before anything was shown may pass: tried
// again. A refusal of the request would be refused again: reported at once.
TEST(AnthropicStreamTest, AServerFailureInTheStreamIsTriedAgainARefusalIsNot) {
  const std::string failure =
      "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\","
      "\"message\":\"Internal error\"}}\n\n";
  testing::LoopbackServer server(std::vector<testing::ScriptedReply>{
      {testing::EventStreamHead() + failure}, {testing::EventStreamHead() + kRecordedStream}});
  ProviderSettings settings;
  settings.base_url = server.url() + "/";
  settings.api_key = "sk-ant-123";
  RecordingSink recorder;
  const std::atomic<bool> cancel{false};
  auto turn = AnthropicProvider(settings).StreamTurn(TurnRequest{}, recorder.sink(), cancel);
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(server.requests(), 2);
  EXPECT_EQ(turn->text, "Checking now.");

  testing::LoopbackServer refusing(std::vector<testing::ScriptedReply>{
      {testing::EventStreamHead() +
       "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
       "\"message\":\"prompt is too long\"}}\n\n"},
      {testing::EventStreamHead() + kRecordedStream}});
  settings.base_url = refusing.url() + "/";
  auto refused = AnthropicProvider(settings).StreamTurn(TurnRequest{}, recorder.sink(), cancel);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refusing.requests(), 1);
  EXPECT_EQ(refused.error().message,
            "the server reported an error in the stream (invalid_request_error): prompt is too "
            "long");
}

TEST(AnthropicStreamTest, ToolCallsReachTheSinkAsEachBlockStops) {
  RecordingSink recorder;
  std::vector<std::size_t> texts_seen_at_call;
  // The call is announced before the text that follows it in the stream.
  auto turn = RunScripted(
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"now\",\"input\":{}}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"after\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
      recorder);
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(recorder.calls.size(), 1u);
  EXPECT_EQ(recorder.calls[0].arguments, "{}");
  EXPECT_EQ(turn->text, "after");
}

TEST(AnthropicStreamTest, WithoutMessageStopTheAnswerIsIncomplete) {
  RecordingSink recorder;
  auto turn = RunScripted(
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"
      "event: message_delta\ndata: "
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n",
      recorder);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
}

}  // namespace
}  // namespace ikigai::providers
