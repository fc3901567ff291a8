// How every provider fails: every fault here is scripted by a loopback
// server, so the exact status, headers and bytes are known.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "providers/provider.h"
#include "providers/testing/loopback_server.h"

namespace ikigai::providers {
namespace {

using std::chrono::milliseconds;
using testing::EventStreamHead;
using testing::HttpAnswer;
using testing::LoopbackServer;
using testing::ScriptedReply;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class ProviderFailuresTest : public ::testing::TestWithParam<std::string> {
 protected:
  bool openai() const { return GetParam() == "openai"; }
  bool gemini() const { return GetParam() == "gemini"; }
  std::string key_variable() const {
    if (gemini()) return "GEMINI_API_KEY";
    return openai() ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
  }

  ProviderSettings Settings(const std::string& url) const {
    ProviderSettings s;
    s.kind = GetParam();
    s.base_url = url;
    s.api_key = "test-key";
    s.max_retries = 3;
    s.stall_timeout_ms = 10000;
    return s;
  }

  static TurnRequest Request() {
    TurnRequest r;
    r.model = "test-model";
    r.messages.push_back({Role::kUser, "hi", {}, {}});
    return r;
  }

  // Runs a turn against `settings`; `sink` collects text and retries.
  Result<Turn, ProviderError> Run(const ProviderSettings& settings,
                                  const std::atomic<bool>& cancel = no_cancel_) {
    auto provider = MakeProvider(settings);
    EXPECT_NE(provider, nullptr);
    StreamSink sink;
    sink.on_text = [this](std::string_view t) { text_ += t; };
    sink.on_retry = [this](std::string_view reason, milliseconds) {
      retries_.emplace_back(reason);
    };
    return provider->StreamTurn(Request(), sink, cancel);
  }

  // The first events of an answer, "Hel" of its text; not the end.
  std::string StreamStart() const {
    if (gemini()) {
      return "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":"
             "\"Hel\"}]},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3}}\n\n";
    }
    if (openai()) {
      return "data: "
             "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
             "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n";
    }
    return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
           "{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
           "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
           "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
           "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n";
  }

  // An event whose JSON is cut short.
  std::string MalformedEvent() const {
    if (gemini()) return "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"lo\"}]}\n\n";
    if (openai()) return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}\n\n";
    return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
           "\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}\n\n";
  }

  // What ends an answer begun by StreamStart().
  std::string StreamEnd() const {
    if (gemini()) {
      return "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":"
             "\"\"}]},\"finishReason\":\"STOP\",\"index\":0}]}\n\n";
    }
    if (openai()) {
      return "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
             "data: [DONE]\n\n";
    }
    return "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  }

  static inline const std::atomic<bool> no_cancel_{false};
  std::string text_;
  std::vector<std::string> retries_;
};

INSTANTIATE_TEST_SUITE_P(AllProviders, ProviderFailuresTest,
                         ::testing::Values("openai", "anthropic", "gemini"),
                         [](const auto& param_info) { return param_info.param; });

TEST_P(ProviderFailuresTest, NoKeyFailsBeforeSendingAndSaysWhatToSet) {
  LoopbackServer server({HttpAnswer(200, "text/event-stream", "")});
  ProviderSettings settings = Settings(server.url());
  settings.api_key = "";
  auto turn = Run(settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kAuth);
  EXPECT_NE(turn.error().message.find("set " + key_variable()), std::string::npos)
      << turn.error().message;
  EXPECT_EQ(server.requests(), 0);
}

TEST_P(ProviderFailuresTest, ARejectedKeyIsAnAuthErrorNamingTheVariableAndIsNotRetried) {
  for (int status : {401, 403}) {
    LoopbackServer server({HttpAnswer(
        status, "application/json",
        R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})")});
    auto turn = Run(Settings(server.url()));
    ASSERT_FALSE(turn);
    EXPECT_EQ(turn.error().kind, ErrorKind::kAuth);
    EXPECT_NE(turn.error().message.find("set " + key_variable()), std::string::npos);
    EXPECT_NE(turn.error().message.find("HTTP " + std::to_string(status) + ": invalid x-api-key"),
              std::string::npos)
        << turn.error().message;
    EXPECT_EQ(server.requests(), 1);
  }
}

TEST_P(ProviderFailuresTest, ServerErrorsAreRetriedThenReportedWithTheServersMessage) {
  LoopbackServer server(
      {HttpAnswer(503, "application/json", R"({"error":{"message":"upstream overloaded"}})",
                  {"Retry-After: 0"})});
  ProviderSettings settings = Settings(server.url());
  settings.max_retries = 2;
  auto turn = Run(settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kServer);
  EXPECT_EQ(turn.error().message, "server error (HTTP 503: upstream overloaded) after 2 retries");
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(retries_.size(), 2u);
}

TEST_P(ProviderFailuresTest, RateLimitsAreRetriedThenReported) {
  LoopbackServer server(
      {HttpAnswer(429, "application/json", R"({"error":{"message":"quota exceeded"}})",
                  {"retry-after-ms: 10"})});
  ProviderSettings settings = Settings(server.url());
  settings.max_retries = 1;
  auto turn = Run(settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kRateLimited);
  EXPECT_EQ(turn.error().message, "rate limited (HTTP 429: quota exceeded) after 1 retry");
  EXPECT_EQ(server.requests(), 2);
  ASSERT_EQ(retries_.size(), 1u);
  EXPECT_EQ(retries_[0], "rate limited (HTTP 429: quota exceeded)");
}

TEST_P(ProviderFailuresTest, WithoutRetriesTheFirstAnswerIsTheError) {
  LoopbackServer server({HttpAnswer(500, "text/plain", "Internal Server Error\n")});
  ProviderSettings settings = Settings(server.url());
  settings.max_retries = 0;
  auto turn = Run(settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().message, "server error (HTTP 500: Internal Server Error)");
  EXPECT_EQ(server.requests(), 1);
}

TEST_P(ProviderFailuresTest, AnotherClientErrorIsReportedAtOnce) {
  LoopbackServer server(
      {HttpAnswer(400, "application/json", R"({"error":{"message":"max_tokens is too large"}})")});
  auto turn = Run(Settings(server.url()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kServer);
  EXPECT_EQ(turn.error().message,
            "the server refused the request (HTTP 400: max_tokens is too large)");
  EXPECT_EQ(server.requests(), 1);
}

TEST_P(ProviderFailuresTest, NotFoundSuggestsCheckingTheBaseUrlAndModel) {
  LoopbackServer server(
      {HttpAnswer(404, "application/json", R"({"error":"model 'x' not found"})")});
  auto turn = Run(Settings(server.url()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().message,
            "the server refused the request (HTTP 404: model 'x' not found); check the base URL "
            "and the model name");
}

TEST_P(ProviderFailuresTest, AServerThatNeverAnswersStallsOut) {
  LoopbackServer server({"", /*hang=*/true});
  ProviderSettings settings = Settings(server.url());
  settings.stall_timeout_ms = 500;
  settings.max_retries = 1;
  const auto start = Clock::now();
  auto turn = Run(settings);
  const double took = SecondsSince(start);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_EQ(turn.error().message,
            "the server sent nothing for 500 ms; gave up waiting for the answer after 1 retry");
  EXPECT_GE(took, 0.95);            // two stalls
  EXPECT_EQ(server.requests(), 2);  // nothing was shown: tried again
}

TEST_P(ProviderFailuresTest, AConnectionClosedBeforeAnyByteIsTriedAgain) {
  LoopbackServer server(std::vector<ScriptedReply>{
      {""}, {EventStreamHead() + StreamStart() + StreamEnd()}});  // closed at once, then whole
  auto turn = Run(Settings(server.url()));
  ASSERT_TRUE(turn) << turn.error().message;
  EXPECT_EQ(server.requests(), 2);
  EXPECT_EQ(text_, "Hel");  // shown once
  ASSERT_EQ(retries_.size(), 1u);
}

TEST_P(ProviderFailuresTest, AFailureAfterTextWasShownIsNotTriedAgain) {
  LoopbackServer server({EventStreamHead() + StreamStart()});  // then the server closes
  auto turn = Run(Settings(server.url()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(server.requests(), 1);
  EXPECT_TRUE(retries_.empty());
}

TEST_P(ProviderFailuresTest, AStreamThatStopsMidwayStallsOut) {
  LoopbackServer server({EventStreamHead() + StreamStart(), /*hang=*/true});
  ProviderSettings settings = Settings(server.url());
  settings.stall_timeout_ms = 500;
  auto turn = Run(settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_EQ(text_, "Hel");  // what came before is shown
}

TEST_P(ProviderFailuresTest, CancelStopsAStalledRequestAtOnce) {
  LoopbackServer server({EventStreamHead() + StreamStart(), /*hang=*/true});
  std::atomic<bool> cancel{false};
  Clock::time_point cancelled_at;
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(300));
    cancelled_at = Clock::now();
    cancel = true;
  });
  auto turn = Run(Settings(server.url()), cancel);
  const double after_cancel = SecondsSince(cancelled_at);
  canceller.join();
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kCancelled);
  EXPECT_LT(after_cancel, 1.0);
  EXPECT_EQ(text_, "Hel");
}

TEST_P(ProviderFailuresTest, CancelStopsTheWaitBeforeARetry) {
  LoopbackServer server({HttpAnswer(429, "application/json", "{}", {"Retry-After: 30"})});
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(300));
    cancel = true;
  });
  const auto start = Clock::now();
  auto turn = Run(Settings(server.url()), cancel);
  const double took = SecondsSince(start);
  canceller.join();
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kCancelled);
  EXPECT_LT(took, 2.0);
  EXPECT_EQ(server.requests(), 1);
}

TEST_P(ProviderFailuresTest, ACancelledTurnSendsNothing) {
  LoopbackServer server({HttpAnswer(200, "text/event-stream", "")});
  const std::atomic<bool> cancel{true};
  auto turn = Run(Settings(server.url()), cancel);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kCancelled);
  EXPECT_EQ(server.requests(), 0);
}

TEST_P(ProviderFailuresTest, AStreamClosedBeforeItsEndIsANetworkError) {
  LoopbackServer server({EventStreamHead() + StreamStart()});  // then the server closes
  auto turn = Run(Settings(server.url()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_EQ(turn.error().message, "the connection closed before the answer was complete");
  EXPECT_EQ(text_, "Hel");
}

TEST_P(ProviderFailuresTest, AMalformedEventIsAProtocolErrorNamingTheEvent) {
  LoopbackServer server({EventStreamHead() + StreamStart() + MalformedEvent() + StreamStart()});
  auto turn = Run(Settings(server.url()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kProtocol);
  const std::string event = gemini()   ? "streamGenerateContent event"
                            : openai() ? "chat.completion.chunk event"
                                       : "'content_block_delta' event";
  EXPECT_NE(turn.error().message.find("malformed JSON in "), std::string::npos)
      << turn.error().message;
  EXPECT_NE(turn.error().message.find(event), std::string::npos) << turn.error().message;
  EXPECT_EQ(text_, "Hel");  // nothing after the bad event
}

TEST_P(ProviderFailuresTest, AnAnswerThatIsNotAnEventStreamIsAProtocolError) {
  LoopbackServer server({HttpAnswer(200, "application/json", "{malformed json")});
  auto turn = Run(Settings(server.url()));
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kProtocol);
  EXPECT_EQ(turn.error().message,
            "the server answered with malformed JSON (application/json) instead of an event "
            "stream: {malformed json");
}

TEST_P(ProviderFailuresTest, NoServerIsANetworkErrorNamingTheUrl) {
  // A port nobody listens on: bound, then closed.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  ProviderSettings settings = Settings(url);
  settings.max_retries = 1;
  auto turn = Run(settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_TRUE(turn.error().message.starts_with("could not connect to " + url + "/"))
      << turn.error().message;
  // A refused connection is tried again before giving up.
  EXPECT_TRUE(turn.error().message.ends_with(" after 1 retry")) << turn.error().message;
  EXPECT_EQ(retries_.size(), 1u);
}

// A request that cannot work as asked fails at once: no retry can mend it.
TEST_P(ProviderFailuresTest, AMalformedBaseUrlIsNotTriedAgain) {
  ProviderSettings settings = Settings("htp:/nowhere");
  auto turn = Run(settings);
  ASSERT_FALSE(turn);
  EXPECT_EQ(turn.error().kind, ErrorKind::kNetwork);
  EXPECT_TRUE(turn.error().message.starts_with("cannot connect to htp:/nowhere"))
      << turn.error().message;
  EXPECT_NE(turn.error().message.find("check the base URL"), std::string::npos);
  EXPECT_TRUE(retries_.empty());
}

TEST(MakeProviderTest, ChoosesByKind) {
  ProviderSettings settings;
  settings.kind = "openai";
  EXPECT_EQ(MakeProvider(settings)->name(), "openai");
  settings.kind = "anthropic";
  EXPECT_EQ(MakeProvider(settings)->name(), "anthropic");
  settings.kind = "gemini";
  EXPECT_EQ(MakeProvider(settings)->name(), "gemini");
  settings.kind = "mistral";
  EXPECT_EQ(MakeProvider(settings), nullptr);
}

}  // namespace
}  // namespace ikigai::providers
