#include "providers/gemini_provider.h"

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

// A conversation after one round of two tool calls, as another provider
// (or a log without replays) left it: the model turn is rebuilt.
TurnRequest ConversationWithResults(const std::string& user_text) {
  TurnRequest r;
  r.model = "gemini-test";
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

TEST(GeminiRequestTest, APlainPrompt) {
  TurnRequest r;
  r.model = "gemini-test";
  r.system = "Be brief.";
  r.max_tokens = 100;
  r.messages.push_back({Role::kUser, "hello", {}, {}});
  EXPECT_EQ(json::parse(GeminiRequestBody(r)), json::parse(R"({
    "systemInstruction": {"parts": [{"text": "Be brief."}]},
    "contents": [{"role": "user", "parts": [{"text": "hello"}]}],
    "generationConfig": {"maxOutputTokens": 100}
  })"));
  EXPECT_EQ(GeminiRequestPath("gemini-test"),
            "/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
}

TEST(GeminiRequestTest, NoSystemPromptNoToolsNoFields) {
  TurnRequest r;
  r.messages.push_back({Role::kUser, "hello", {}, {}});
  const json body = json::parse(GeminiRequestBody(r));
  EXPECT_FALSE(body.contains("systemInstruction"));
  EXPECT_FALSE(body.contains("tools"));
}

TEST(GeminiRequestTest, TheModelNameIsOnePathSegment) {
  EXPECT_EQ(GeminiRequestPath("models/gemini-2.5-pro"),
            "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
  EXPECT_EQ(GeminiRequestPath("my model/x?"),
            "/v1beta/models/my%20model%2Fx%3F:streamGenerateContent?alt=sse");
}

TEST(GeminiRequestTest, FunctionCallsFunctionResponsesAndDeclarations) {
  TurnRequest r = ConversationWithResults("find");
  r.messages.back().tool_results.push_back({"call_c", "bash", "not JSON at all"});
  r.messages.push_back({Role::kAssistant, "Done.", {}, {}});
  const json body = json::parse(GeminiRequestBody(r));
  EXPECT_EQ(body["systemInstruction"],
            json::parse(R"({"parts": [{"text": "You are ikigai. Use the tools."}]})"));
  EXPECT_EQ(body["contents"], json::parse(R"([
    {"role": "user", "parts": [{"text": "find"}]},
    {"role": "model", "parts": [
      {"text": "I will search."},
      {"functionCall": {"id": "call_a", "name": "glob", "args": {"pattern": "**/*.cc"}}},
      {"functionCall": {"id": "call_b", "name": "grep", "args": {"pattern": "TODO"}}}]},
    {"role": "user", "parts": [
      {"functionResponse": {"id": "call_a", "name": "glob",
                            "response": {"tool_success": true, "result": {"files": ["a.cc"]}}}},
      {"functionResponse": {"id": "call_b", "name": "grep",
                            "response": {"tool_success": false, "error": "boom"}}},
      {"functionResponse": {"id": "call_c", "name": "bash",
                            "response": {"content": "not JSON at all"}}}]},
    {"role": "model", "parts": [{"text": "Done."}]}
  ])"));
  EXPECT_EQ(body["tools"], json::parse(R"([{"functionDeclarations": [
    {"name": "glob", "description": "Find files",
     "parametersJsonSchema": {"type": "object", "properties": {"pattern": {"type": "string"}}}},
    {"name": "grep", "description": "Search files",
     "parametersJsonSchema": {"type": "object", "properties": {}}}
  ]}])"));
  EXPECT_EQ(body["generationConfig"], json::parse(R"({"maxOutputTokens": 2048})"));
}

TEST(GeminiRequestTest, InvalidArgumentsBecomeEmptyArgs) {
  TurnRequest r;
  r.messages.push_back(
      {Role::kAssistant, "", {{"c1", "bash", "{\"command\": \"ls"}, {"c2", "bash", "[1]"}}, {}});
  const json body = json::parse(GeminiRequestBody(r));
  const json& parts = body["contents"][0]["parts"];
  ASSERT_EQ(parts.size(), 2u);  // no empty text part
  EXPECT_EQ(parts[0]["functionCall"]["args"], json::object());
  EXPECT_EQ(parts[1]["functionCall"]["args"], json::object());
}

// Gemini 3 refuses a conversation whose thought signatures were dropped:
// the model turn goes back exactly as it came, not rebuilt from the text and
// calls. A call the model gave no id gets its result without one.
TEST(GeminiRequestTest, AModelTurnIsReplayedVerbatimWithItsThoughtSignatures) {
  const json parts = json::parse(R"([
    {"text": "Let me think about the files.", "thought": true},
    {"text": "Looking.", "thoughtSignature": "c2lnLXRleHQ="},
    {"functionCall": {"name": "glob", "args": {"pattern": "*.h"}}, "thoughtSignature": "c2lnLWNhbGw="},
    {"functionCall": {"id": "fc_9", "name": "grep", "args": {"pattern": "x"}}},
    {"text": "", "thoughtSignature": "c2lnLWVuZA=="}
  ])");
  TurnRequest r;
  r.messages.push_back({Role::kUser, "look", {}, {}});
  Message model{
      Role::kAssistant,
      "Looking.",
      {{"gemini_call_0", "glob", R"({"pattern":"*.h"})"}, {"fc_9", "grep", R"({"pattern":"x"})"}},
      {}};
  model.replay = {{"provider", "gemini"}, {"parts", parts}};
  r.messages.push_back(model);
  r.messages.push_back({Role::kToolResults,
                        "",
                        {},
                        {{"gemini_call_0", "glob", R"({"tool_success":true,"result":{}})"},
                         {"fc_9", "grep", R"({"tool_success":true,"result":{}})"}}});
  const json body = json::parse(GeminiRequestBody(r));
  ASSERT_EQ(body["contents"].size(), 3u);
  EXPECT_EQ(body["contents"][1], json({{"role", "model"}, {"parts", parts}}));
  EXPECT_EQ(body["contents"][2]["parts"], json::parse(R"([
    {"functionResponse": {"name": "glob", "response": {"tool_success": true, "result": {}}}},
    {"functionResponse": {"id": "fc_9", "name": "grep", "response": {"tool_success": true, "result": {}}}}
  ])"));

  // Another provider's form is not Gemini's: the turn is rebuilt.
  r.messages[1].replay = {{"provider", "other"}, {"parts", parts}};
  const json rebuilt = json::parse(GeminiRequestBody(r));
  EXPECT_EQ(rebuilt["contents"][1]["parts"][0], json::parse(R"({"text": "Looking."})"));
  EXPECT_EQ(rebuilt["contents"][1]["parts"].size(), 3u);
}

TEST(GeminiRequestTest, ConsecutiveContentsOfOneRoleAreMerged) {
  // Results of a cancelled turn, then the next prompt; an empty model turn
  // left out between two prompts.
  TurnRequest r;
  r.messages.push_back({Role::kUser, "a", {}, {}});
  r.messages.push_back({Role::kAssistant, "", {{"c1", "bash", "{}"}}, {}});
  r.messages.push_back({Role::kToolResults, "", {}, {{"c1", "bash", R"({"x":1})"}}});
  r.messages.push_back({Role::kUser, "b", {}, {}});
  r.messages.push_back({Role::kAssistant, "", {}, {}});
  r.messages.push_back({Role::kUser, "c", {}, {}});
  const json body = json::parse(GeminiRequestBody(r));
  EXPECT_EQ(body["contents"], json::parse(R"([
    {"role": "user", "parts": [{"text": "a"}]},
    {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "bash", "args": {}}}]},
    {"role": "user", "parts": [
      {"functionResponse": {"id": "c1", "name": "bash", "response": {"x": 1}}},
      {"text": "b"}, {"text": "c"}]}
  ])"));
}

// Against aimock: the requests ikigai sends, the answers it reads. aimock's
// journal shows Gemini requests translated to the OpenAI shape (a system
// message, tool_calls, tool messages); it reads a declaration's "parameters"
// only, so the schemas (in parametersJsonSchema) are checked above.
class GeminiAimockTest : public ::testing::Test {
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
    s.kind = "gemini";
    s.base_url = aimock_->url();
    s.api_key = AimockServer::kApiKey;
    s.stall_timeout_ms = 10000;
    return s;
  }
  static TurnRequest Prompt(const std::string& text) {
    TurnRequest r;
    r.model = "gemini-test";
    r.system = "You are ikigai.";
    r.messages.push_back({Role::kUser, text, {}, {}});
    return r;
  }
  Result<Turn, ProviderError> Run(const TurnRequest& request,
                                  ProviderSettings settings = Settings()) {
    GeminiProvider provider(std::move(settings));
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
    {"match": {"userMessage": "ge-plain"},
     "response": {"content": "Gemini answers in a stream of several pieces.",
                  "usage": {"prompt_tokens": 13, "completion_tokens": 8, "total_tokens": 21}}},
    {"match": {"userMessage": "ge-one-tool"},
     "response": {"toolCalls": [{"id": "call_one", "name": "bash",
                                 "arguments": {"command": "ls -la \"my dir\"", "timeout_seconds": 5}}]}},
    {"match": {"toolCallId": "call_b2"}, "response": {"content": "Found a.cc; grep failed."}},
    {"match": {"userMessage": "ge-two-tools"},
     "response": {"toolCalls": [
       {"id": "call_a2", "name": "glob", "arguments": {"pattern": "**/*.cc"}},
       {"id": "call_b2", "name": "grep", "arguments": {"pattern": "TODO", "glob": "*.h"}}]}},
    {"match": {"userMessage": "ge-no-ids"},
     "response": {"toolCalls": [
       {"name": "glob", "arguments": {"pattern": "*.md"}},
       {"name": "glob", "arguments": {"pattern": "*.txt"}}]}},
    {"match": {"userMessage": "ge-limit", "sequenceIndex": 0},
     "response": {"error": {"message": "Resource has been exhausted", "type": "RESOURCE_EXHAUSTED"}, "status": 429, "retryAfter": 1}},
    {"match": {"userMessage": "ge-limit", "sequenceIndex": 1}, "response": {"content": "After the wait."}},
    {"match": {"userMessage": "ge-unavailable", "sequenceIndex": 0},
     "response": {"error": {"message": "The model is overloaded.", "type": "UNAVAILABLE"}, "status": 503}},
    {"match": {"userMessage": "ge-unavailable", "sequenceIndex": 1}, "response": {"content": "Back again."}},
    {"match": {"userMessage": "ge-cut"}, "truncateAfterChunks": 4, "latency": 10,
     "response": {"content": "This answer is long enough to be cut off after a few chunks of text."}}
  ]})";

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  RecordingSink recorder_;
};

TEST_F(GeminiAimockTest, APlainAnswerStreamsInPieces) {
  auto turn = Run(Prompt("ge-plain"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Gemini answers in a stream of several pieces.");
  EXPECT_EQ(recorder_.text(), turn->text);
  EXPECT_GE(recorder_.texts.size(), 3u);
  EXPECT_EQ(turn->finish_reason, "STOP");
  EXPECT_EQ(turn->usage.input_tokens, 13);
  EXPECT_EQ(turn->usage.output_tokens, 8);
  // The pieces are kept as the one text part they make.
  EXPECT_EQ(turn->replay, json::parse(R"({"provider": "gemini", "parts": [
    {"text": "Gemini answers in a stream of several pieces."}]})"));

  const json request = LastRequest();
  EXPECT_EQ(request["path"], "/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
  EXPECT_TRUE(request["headers"].contains("x-goog-api-key")) << request["headers"];
  EXPECT_EQ(request["body"]["model"], "gemini-test");
  EXPECT_EQ(request["body"]["stream"], true);
  EXPECT_EQ(request["body"]["max_tokens"], 8192);
  EXPECT_EQ(request["body"]["messages"],
            json::parse(R"([{"role":"system","content":"You are ikigai."},
                            {"role":"user","content":"ge-plain"}])"));
}

TEST_F(GeminiAimockTest, OneToolCallArrivesWhole) {
  auto turn = Run(Prompt("ge-one-tool"));
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].id, "call_one");
  EXPECT_EQ(turn->tool_calls[0].name, "bash");
  EXPECT_EQ(json::parse(turn->tool_calls[0].arguments),
            json::parse(R"({"command": "ls -la \"my dir\"", "timeout_seconds": 5})"));
  EXPECT_EQ(turn->finish_reason, "FUNCTION_CALL");  // aimock's; the API says STOP
  EXPECT_EQ(turn->text, "");
  ASSERT_EQ(recorder_.calls.size(), 1u);
  EXPECT_EQ(recorder_.calls[0].arguments, turn->tool_calls[0].arguments);
  EXPECT_EQ(turn->replay["parts"][0]["functionCall"]["id"], "call_one");
}

// Parallel calls, then their results sent back with the model turn replayed:
// aimock pairs each functionResponse with its call, and its follow-up
// fixture matches the id of the last result.
TEST_F(GeminiAimockTest, ParallelCallsInOrderAndTheirResultsGoBack) {
  TurnRequest request = Prompt("ge-two-tools");
  auto turn = Run(request);
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 2u);
  EXPECT_EQ(turn->tool_calls[0].id, "call_a2");
  EXPECT_EQ(turn->tool_calls[0].name, "glob");
  EXPECT_EQ(turn->tool_calls[1].id, "call_b2");
  EXPECT_EQ(json::parse(turn->tool_calls[1].arguments),
            json::parse(R"({"pattern": "TODO", "glob": "*.h"})"));
  ASSERT_EQ(recorder_.calls.size(), 2u);
  EXPECT_EQ(recorder_.calls[0].id, "call_a2");

  Message model{Role::kAssistant, turn->text, turn->tool_calls, {}};
  model.replay = turn->replay;
  request.messages.push_back(model);
  request.messages.push_back(
      {Role::kToolResults,
       "",
       {},
       {{"call_a2", "glob", R"({"tool_success":true,"result":{"files":["a.cc"]}})"},
        {"call_b2", "grep", R"({"tool_success":false,"error":"boom"})"}}});
  auto next = Run(request);
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->text, "Found a.cc; grep failed.");
  const json request_seen = LastRequest();
  const json& messages = request_seen["body"]["messages"];
  ASSERT_EQ(messages.size(), 5u) << messages;
  EXPECT_EQ(messages[2]["tool_calls"][0]["id"], "call_a2");
  EXPECT_EQ(messages[2]["tool_calls"][1]["id"], "call_b2");
  EXPECT_EQ(messages[3]["tool_call_id"], "call_a2");
  EXPECT_EQ(json::parse(messages[3]["content"].get<std::string>()),
            json::parse(R"({"tool_success":true,"result":{"files":["a.cc"]}})"));
  EXPECT_EQ(messages[4]["tool_call_id"], "call_b2");
}

// Gemini 2.x gives calls no id: ikigai names them, uniquely in the
// conversation (the number counts the calls before).
TEST_F(GeminiAimockTest, CallsWithoutAnIdGetStableNames) {
  TurnRequest request = Prompt("ge-no-ids");
  request.messages.insert(request.messages.begin(),
                          {{Role::kUser, "before", {}, {}},
                           {Role::kAssistant, "", {{"c0", "bash", "{}"}}, {}},
                           {Role::kToolResults, "", {}, {{"c0", "bash", "{}"}}}});
  auto turn = Run(request);
  ASSERT_TRUE(turn) << turn.error().message;
  ASSERT_EQ(turn->tool_calls.size(), 2u);
  EXPECT_EQ(turn->tool_calls[0].id, "gemini_call_1");
  EXPECT_EQ(turn->tool_calls[1].id, "gemini_call_2");
  EXPECT_EQ(turn->tool_calls[1].arguments, R"({"pattern":"*.txt"})");
  EXPECT_FALSE(turn->replay["parts"][0]["functionCall"].contains("id"));
}

TEST_F(GeminiAimockTest, ARateLimitIsRetriedAfterTheTimeTheServerAsks) {
  const auto start = Clock::now();
  auto turn = Run(Prompt("ge-limit"));
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "After the wait.");
  ASSERT_EQ(recorder_.retries.size(), 1u);
  EXPECT_EQ(recorder_.retries[0], "rate limited (HTTP 429: Resource has been exhausted)");
  EXPECT_EQ(recorder_.waits[0], std::chrono::seconds(1));
  EXPECT_GE(took, 0.95);
  EXPECT_EQ(aimock_->Journal()->size(), 2u);
}

TEST_F(GeminiAimockTest, UnavailableIsRetriedWithBackoff) {
  auto turn = Run(Prompt("ge-unavailable"));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Back again.");
  ASSERT_EQ(recorder_.retries.size(), 1u);
  EXPECT_EQ(recorder_.retries[0], "server error (HTTP 503: The model is overloaded.)");
}

TEST_F(GeminiAimockTest, AStreamCutOffMidwayIsANetworkError) {
  auto turn = Run(Prompt("ge-cut"));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_TRUE(
      turn.error().message.starts_with("the connection closed before the answer was complete"))
      << turn.error().message;
  // The chunks before the cut were shown.
  const std::string whole = "This answer is long enough to be cut off after a few chunks of text.";
  EXPECT_FALSE(recorder_.text().empty());
  EXPECT_LT(recorder_.text().size(), whole.size());
  EXPECT_TRUE(whole.starts_with(recorder_.text())) << recorder_.text();
}

TEST_F(GeminiAimockTest, AWrongKeyIsAnAuthErrorNamingTheVariable) {
  ProviderSettings settings = Settings();
  settings.api_key = "AIza-wrong";
  auto turn = Run(Prompt("ge-plain"), settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kAuth);
  EXPECT_EQ(turn.error().message,
            "the server refused the API key (HTTP 401: Invalid API key); set GEMINI_API_KEY to a "
            "valid key");
}

// Scripted streams and answers, for what aimock does not send.
struct Scripted {
  explicit Scripted(std::vector<testing::ScriptedReply> replies) : server(std::move(replies)) {}
  Result<Turn, ProviderError> Run(const TurnRequest& request = TurnRequest{}) {
    ProviderSettings settings;
    settings.base_url = server.url() + "/";
    settings.api_key = "AIza-123";
    GeminiProvider provider(settings);
    const std::atomic<bool> cancel{false};
    return provider.StreamTurn(request, recorder.sink(), cancel);
  }
  testing::LoopbackServer server;
  RecordingSink recorder;
};

std::string Stream(const std::string& events) { return testing::EventStreamHead() + events; }

// As the API streams a thinking model's turn: a thought summary, text with
// a signature, the text's continuation, a call carrying its signature, and
// the counts in every chunk.
constexpr const char* kRecordedStream =
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Planning the search.\", "
    "\"thought\": true}], \"role\": \"model\"}, \"index\": 0}], \"usageMetadata\": "
    "{\"promptTokenCount\": 500, \"totalTokenCount\": 500}, \"modelVersion\": \"gemini-3-pro\"}\n\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Checking\", "
    "\"thoughtSignature\": \"c2lnLTE=\"}], \"role\": \"model\"}, \"index\": 0}]}\n\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" now\"}], \"role\": "
    "\"model\"}, \"index\": 0}]}\n\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \".\"}], \"role\": "
    "\"model\"}, \"index\": 0}]}\n\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"bash\", "
    "\"args\": {\"command\": \"git status\"}}, \"thoughtSignature\": \"c2lnLTI=\"}], \"role\": "
    "\"model\"}, \"finishReason\": \"STOP\", \"index\": 0}], \"usageMetadata\": "
    "{\"promptTokenCount\": 500, \"candidatesTokenCount\": 40, \"cachedContentTokenCount\": 320, "
    "\"thoughtsTokenCount\": 49, \"totalTokenCount\": 589}}\n\n";

TEST(GeminiStreamTest, ARecordedStreamWithThoughtsSignaturesTextAndACall) {
  Scripted scripted({{Stream(kRecordedStream)}});
  TurnRequest request = ConversationWithResults("find");
  request.messages.push_back({Role::kUser, "and now?", {}, {}});
  auto turn = scripted.Run(request);
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Checking now.");  // the thought is not shown
  EXPECT_EQ(scripted.recorder.texts, (std::vector<std::string>{"Checking", " now", "."}));
  ASSERT_EQ(turn->tool_calls.size(), 1u);
  EXPECT_EQ(turn->tool_calls[0].id, "gemini_call_2");  // two calls came before
  EXPECT_EQ(turn->tool_calls[0].name, "bash");
  EXPECT_EQ(turn->tool_calls[0].arguments, R"({"command":"git status"})");
  EXPECT_EQ(turn->finish_reason, "STOP");  // the real API ends a call turn with STOP
  ASSERT_EQ(scripted.recorder.calls.size(), 1u);
  // Cache reads counted apart from plain input; thoughts are output.
  EXPECT_EQ(turn->usage.input_tokens, 180);
  EXPECT_EQ(turn->usage.cache_read_tokens, 320);
  EXPECT_EQ(turn->usage.TotalInput(), 500);
  EXPECT_EQ(turn->usage.output_tokens, 89);
  // Everything kept for the replay, signatures where they came.
  EXPECT_EQ(turn->replay, json::parse(R"({"provider": "gemini", "parts": [
    {"text": "Planning the search.", "thought": true},
    {"text": "Checking", "thoughtSignature": "c2lnLTE="},
    {"text": " now."},
    {"functionCall": {"name": "bash", "args": {"command": "git status"}},
     "thoughtSignature": "c2lnLTI="}]})"));

  // The request on the wire: path, key header, and the body exactly as built.
  const std::string sent = scripted.server.last_request();
  EXPECT_TRUE(sent.starts_with(
      "POST /v1beta/models/gemini-test:streamGenerateContent?alt=sse HTTP/1.1\r\n"))
      << sent;
  EXPECT_NE(sent.find("x-goog-api-key: AIza-123\r\n"), std::string::npos) << sent;
  EXPECT_NE(sent.find("Content-Type: application/json\r\n"), std::string::npos) << sent;
  EXPECT_EQ(sent.find("Authorization"), std::string::npos) << sent;
  const std::string body = sent.substr(sent.find("\r\n\r\n") + 4);
  EXPECT_EQ(json::parse(body), json::parse(GeminiRequestBody(request)));
}

TEST(GeminiStreamTest, FunctionCallAndStopBothEndATurnOfCalls) {
  for (const std::string reason : {"STOP", "FUNCTION_CALL"}) {
    SCOPED_TRACE(reason);
    Scripted scripted({{Stream(
        "data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": ["
        "{\"functionCall\": {\"id\": \"a\", \"name\": \"glob\", \"args\": {\"pattern\": \"*\"}}},"
        "{\"functionCall\": {\"id\": \"b\", \"name\": \"grep\", \"args\": {}}}]}, "
        "\"finishReason\": \"" +
        reason + "\"}]}\n\n")}});
    auto turn = scripted.Run();
    ASSERT_TRUE(turn) << turn.error().message;
    ASSERT_EQ(turn->tool_calls.size(), 2u);
    EXPECT_EQ(turn->tool_calls[0].id, "a");
    EXPECT_EQ(turn->tool_calls[1].id, "b");
    EXPECT_EQ(turn->tool_calls[1].arguments, "{}");
    EXPECT_EQ(turn->finish_reason, reason);
  }
}

TEST(GeminiStreamTest, MaxTokensEndsTheTurnWithWhatCame) {
  Scripted scripted(
      {{Stream("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Cut sho\"}]}, "
               "\"finishReason\": \"MAX_TOKENS\"}], \"usageMetadata\": {\"promptTokenCount\": 5, "
               "\"candidatesTokenCount\": 3}}\n\n")}});
  auto turn = scripted.Run();
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(turn->text, "Cut sho");
  EXPECT_EQ(turn->finish_reason, "MAX_TOKENS");
  EXPECT_EQ(turn->usage.input_tokens, 5);
  EXPECT_EQ(turn->usage.output_tokens, 3);
}

TEST(GeminiStreamTest, ABlockedAnswerIsAClearErrorAndNotTriedAgain) {
  Scripted scripted({{Stream(
      "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Sure, \"}]}}]}\n\n"
      "data: {\"candidates\": [{\"finishReason\": \"SAFETY\", \"safetyRatings\": []}]}\n\n")}});
  auto turn = scripted.Run();
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kServer);
  EXPECT_EQ(turn.error().message,
            "Gemini stopped the answer (finishReason SAFETY: the safety filters flagged it)");
  EXPECT_EQ(scripted.server.requests(), 1);

  Scripted recitation({{Stream("data: {\"candidates\": [{\"finishReason\": \"RECITATION\"}]}\n\n")},
                       {Stream(kRecordedStream)}});
  auto recited = recitation.Run();
  ASSERT_FALSE(recited);
  EXPECT_NE(recited.error().message.find("RECITATION"), std::string::npos);
  EXPECT_EQ(recitation.server.requests(), 1);  // the same request would be refused again
}

TEST(GeminiStreamTest, ABlockedPromptIsAClearError) {
  Scripted scripted(
      {{Stream("data: {\"promptFeedback\": {\"blockReason\": \"PROHIBITED_CONTENT\"}, "
               "\"usageMetadata\": {\"promptTokenCount\": 9}}\n\n")}});
  auto turn = scripted.Run();
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kServer);
  EXPECT_EQ(turn.error().message,
            "Gemini refused the prompt (blockReason PROHIBITED_CONTENT); change the request");
}

TEST(GeminiStreamTest, WithoutAFinishReasonTheAnswerIsIncomplete) {
  Scripted scripted({{Stream(
      "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}]}}]}\n\n")}});
  auto turn = scripted.Run();
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_EQ(turn.error().message, "the connection closed before the answer was complete");
  EXPECT_EQ(scripted.server.requests(), 1);  // text was shown: not tried again
}

// The server's own failure before anything was shown may pass: tried
// again, and the answer shown once. A refusal would be refused again.
TEST(GeminiStreamTest, AnErrorInTheStreamIsTriedAgainOnlyWhenTheServersOwn) {
  Scripted internal(
      {{Stream(
           "data: {\"error\": {\"code\": 500, \"message\": \"An internal error has occurred.\", "
           "\"status\": \"INTERNAL\"}}\n\n")},
       {Stream(kRecordedStream)}});
  auto turn = internal.Run();
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(internal.server.requests(), 2);
  EXPECT_EQ(turn->text, "Checking now.");
  EXPECT_EQ(internal.recorder.text(), "Checking now.");
  ASSERT_EQ(internal.recorder.retries.size(), 1u);
  EXPECT_EQ(internal.recorder.retries[0],
            "the server reported an error in the stream (INTERNAL): An internal error has "
            "occurred.");

  Scripted refusing(
      {{Stream("data: {\"error\": {\"code\": 400, \"message\": \"Request contains an invalid "
               "argument.\", \"status\": \"INVALID_ARGUMENT\"}}\n\n")},
       {Stream(kRecordedStream)}});
  auto refused = refusing.Run();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::kServer);
  EXPECT_EQ(refusing.server.requests(), 1);
  EXPECT_EQ(refused.error().message,
            "the server reported an error in the stream (INVALID_ARGUMENT): Request contains an "
            "invalid argument.");

  Scripted exhausted({{Stream("data: {\"error\": {\"code\": 429, \"message\": \"Resource has been "
                              "exhausted\", \"status\": \"RESOURCE_EXHAUSTED\"}}\n\n")},
                      {Stream(kRecordedStream)}});
  auto limited = exhausted.Run();
  ASSERT_TRUE(limited) << limited.error().message;
  EXPECT_EQ(exhausted.server.requests(), 2);
}

TEST(GeminiStreamTest, AContextTooLongRefusalIsItsOwnKind) {
  Scripted scripted({{testing::HttpAnswer(
      400, "application/json",
      R"({"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}})")}});
  auto turn = scripted.Run();
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kContextTooLong);
  EXPECT_NE(turn.error().message.find("The input token count (1200000) exceeds"), std::string::npos)
      << turn.error().message;
  EXPECT_EQ(scripted.server.requests(), 1);

  Scripted in_stream(
      {{Stream("data: {\"error\": {\"code\": 400, \"message\": \"The input token count (9) "
               "exceeds the maximum number of tokens allowed (8).\", \"status\": "
               "\"INVALID_ARGUMENT\"}}\n\n")}});
  auto streamed = in_stream.Run();
  ASSERT_FALSE(streamed);
  EXPECT_EQ(streamed.error().kind, ErrorKind::kContextTooLong);
}

// The real API refuses a wrong key with 400 API_KEY_INVALID, not 401.
TEST(GeminiStreamTest, AnInvalidKeyRefusalIsAnAuthErrorNamingTheVariable) {
  Scripted scripted({{testing::HttpAnswer(
      400, "application/json",
      R"({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]}})")}});
  auto turn = scripted.Run();
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kAuth);
  EXPECT_EQ(turn.error().message,
            "the server refused the API key (HTTP 400: API key not valid. Please pass a valid API "
            "key.); set GEMINI_API_KEY to a valid key");
}

TEST(GeminiStreamTest, NoKeyFailsBeforeSending) {
  testing::LoopbackServer server({testing::HttpAnswer(200, "text/event-stream", "")});
  ProviderSettings settings;
  settings.base_url = server.url();
  GeminiProvider provider(settings);
  RecordingSink recorder;
  const std::atomic<bool> cancel{false};
  auto turn = provider.StreamTurn(TurnRequest{}, recorder.sink(), cancel);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kAuth);
  EXPECT_EQ(turn.error().message, "no API key: set GEMINI_API_KEY");
  EXPECT_EQ(server.requests(), 0);
}

}  // namespace
}  // namespace ikigai::providers
