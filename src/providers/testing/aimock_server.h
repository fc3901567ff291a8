// aimock, started for a test: an OpenAI- and Anthropic-compatible server on
// 127.0.0.1 that answers from fixtures, injects faults, and keeps a journal
// of the requests it received (@copilotkit/aimock, installed in the
// repository's node_modules by scripts/install-deps.sh).
//
//   auto aimock = AimockServer::Start(R"({"fixtures": [...]})");
//   ASSERT_TRUE(aimock) << aimock.error();
//   settings.base_url = (*aimock)->openai_base_url();   // or anthropic_base_url()
//   settings.api_key = AimockServer::kApiKey;           // any other key gets 401
//   ... (*aimock)->Journal() ...
//
// Fixtures (first match wins; "userMessage" is a substring of the last user
// message):
//   {"match": {"userMessage": "hi"}, "response": {"content": "Hello!"}}
//   {"match": {"userMessage": "ls"}, "response": {"toolCalls": [
//       {"id": "call_1", "name": "bash", "arguments": {"command": "ls"}}]}}
//   {"match": {"toolCallId": "call_1"}, "response": {"content": "done"}}
//   {"match": {"userMessage": "x", "sequenceIndex": 0}, "response": {
//       "error": {"message": "slow down", "type": "rate_limit_error"},
//       "status": 429, "retryAfter": 1}}
//   {"match": ..., "response": ..., "truncateAfterChunks": 2, "latency": 20}
//   {"match": ..., "response": ..., "chaos": {"malformedRate": 1}}
// Answers stream in chunks of "chunkSize" characters (default 20). After a
// tool round the last user message is unchanged, so a "userMessage" fixture
// would match again: match the follow-up with "toolCallId" (the id of the
// last tool result), "hasToolResult": true, or "turnIndex" (the number of
// assistant messages in the request). aimock reads Anthropic requests into
// the OpenAI shape before matching and journaling them: the system prompt is
// a "system" message, tool_use blocks are "tool_calls" (arguments as JSON
// text), tool_result blocks are "tool" messages with "tool_call_id".
#pragma once

#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "base/result.h"

namespace ikigai::providers::testing {

class AimockServer {
 public:
  static constexpr const char* kApiKey = "aimock-test-key";

  // Starts aimock on a free port with these fixtures: JSON text,
  // {"fixtures": [...]}, kept as written (a nlohmann::json would sort the
  // keys of tool call arguments). Errors say why (aimock not installed, did
  // not start, its output). By default aimock may serve a fixture with a
  // "turnIndex" at later turns too; `strict_turn_index` serves it at that
  // turn only.
  static Result<std::unique_ptr<AimockServer>, std::string> Start(std::string_view fixtures,
                                                                  bool strict_turn_index = false);
  ~AimockServer();  // stops the process
  AimockServer(const AimockServer&) = delete;
  AimockServer& operator=(const AimockServer&) = delete;

  std::string url() const;                 // http://127.0.0.1:PORT
  std::string openai_base_url() const;     // url() + "/v1"
  std::string anthropic_base_url() const;  // url()

  // Replaces the fixtures; clears the journal and the sequenceIndex counts.
  Result<std::monostate, std::string> SetFixtures(std::string_view fixtures);

  // GET /__aimock/journal: every request, oldest first. Each entry:
  // {"method", "path", "headers" (credentials redacted), "body" (the request
  // JSON as sent, plus "_endpointType"), "response": {"status", "fixture"}}.
  Result<nlohmann::json, std::string> Journal() const;

  std::string Log() const;  // what aimock printed

 private:
  AimockServer() = default;

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;  // the fixture file and the log
};

// One aimock shared by a test suite (started in SetUpTestSuite, stopped in
// TearDownTestSuite) and reset before each test, so tests pay aimock's
// start-up once per process.
class SuiteAimock {
 public:
  void Start(std::string_view fixtures);
  void Stop();
  // The server with `fixtures` loaded and a fresh journal and sequence
  // counts, or why it is not there (it did not start, or would not reset).
  Result<AimockServer*, std::string> Reset(std::string_view fixtures);

 private:
  std::unique_ptr<AimockServer> server_;
  std::string start_error_;
};

}  // namespace ikigai::providers::testing
