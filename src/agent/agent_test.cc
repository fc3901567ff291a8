// The agent loop with a scripted provider (the provider interface is ours),
// the real core tools (discovered from the build's libexec directory) and
// the real executor.
#include "agent/agent.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "agent/tool_specs.h"
#include "discovery/discovery.h"
#include "testing/tool_runner.h"

namespace ikigai::agent {
namespace {

using nlohmann::json;
using providers::ErrorKind;
using providers::Message;
using providers::ProviderError;
using providers::Role;
using providers::StreamSink;
using providers::ToolCall;
using providers::Turn;
using providers::TurnRequest;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A provider that answers from a script and remembers every request.
class FakeProvider final : public providers::Provider {
 public:
  using Step = std::function<Result<Turn, ProviderError>(const TurnRequest&, const StreamSink&,
                                                         const std::atomic<bool>& cancel)>;

  void Answer(Turn turn) {
    steps_.push_back([turn](const TurnRequest&, const StreamSink& sink,
                            const std::atomic<bool>&) -> Result<Turn, ProviderError> {
      if (sink.on_text && !turn.text.empty()) sink.on_text(turn.text);
      return turn;
    });
  }
  void Fail(ProviderError error) {
    steps_.push_back(
        [error](const TurnRequest&, const StreamSink&,
                const std::atomic<bool>&) -> Result<Turn, ProviderError> { return Err(error); });
  }
  void Do(Step step) { steps_.push_back(std::move(step)); }
  // Every later turn gets this answer (once the script is used up).
  void Always(Turn turn) { always_ = std::move(turn); }

  Result<Turn, ProviderError> StreamTurn(const TurnRequest& request, const StreamSink& sink,
                                         const std::atomic<bool>& cancel) override {
    requests.push_back(request);
    if (steps_.empty()) {
      if (always_) return *always_;
      ADD_FAILURE() << "the agent asked for more turns than the test scripted";
      return Err(ProviderError{ErrorKind::kProtocol, "no scripted turn"});
    }
    Step step = std::move(steps_.front());
    steps_.pop_front();
    return step(request, sink, cancel);
  }
  std::string name() const override { return "fake"; }

  std::vector<TurnRequest> requests;

 private:
  std::deque<Step> steps_;
  std::optional<Turn> always_;
};

Turn Text(std::string text, long input_tokens = 0, long output_tokens = 0) {
  Turn turn;
  turn.text = std::move(text);
  turn.finish_reason = "stop";
  turn.usage = {input_tokens, output_tokens};
  return turn;
}

Turn Calls(std::vector<ToolCall> calls, std::string text = "") {
  Turn turn;
  turn.text = std::move(text);
  turn.tool_calls = std::move(calls);
  turn.finish_reason = "tool_calls";
  return turn;
}

ToolCall Bash(std::string id, const std::string& command) {
  return {std::move(id), "bash", json{{"command", command}}.dump()};
}

json Content(const providers::ToolResult& result) { return json::parse(result.content); }

class AgentTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    core_ = new std::shared_ptr<const registry::Registry>(
        std::make_shared<const registry::Registry>(discovery::Discover({IKIGAI_TOOL_DIR, "", ""})));
  }
  static void TearDownTestSuite() {
    delete core_;
    core_ = nullptr;
  }
  void SetUp() override {
    ASSERT_EQ((*core_)->tools().size(), 13u) << "the core tools are not built in " IKIGAI_TOOL_DIR;
    registry_.Set(*core_);
  }

  Agent MakeAgent(AgentOptions options = {"test-model", "You are a test.", 50, 1000}) {
    return Agent(provider_, registry_, executor_, std::move(options), permissions_, nullptr);
  }

  AgentObserver Observer() {
    AgentObserver observer;
    observer.on_text = [this](std::string_view text) {
      std::lock_guard lock(mutex_);
      texts_ += text;
    };
    observer.on_tool_start = [this](const ToolCall& call) {
      std::lock_guard lock(mutex_);
      started_.push_back(call.id);
    };
    observer.on_tool_end = [this](const ToolCall& call, const protocol::WrappedJson&,
                                  std::chrono::microseconds) {
      std::lock_guard lock(mutex_);
      ended_.push_back(call.id);
    };
    return observer;
  }

  static inline std::shared_ptr<const registry::Registry>* core_ = nullptr;
  FakeProvider provider_;
  registry::RegistryHolder registry_;
  executor::Executor executor_{executor::ExecutorOptions{}};
  PermissionPolicy permissions_;
  Cancellation cancel_;
  std::mutex mutex_;
  std::string texts_;
  std::vector<std::string> started_, ended_;
};

TEST_F(AgentTest, APlainAnswerEndsThePromptInOneRound) {
  provider_.Answer(Text("Hello there.", 12, 3));
  Agent agent = MakeAgent();
  auto outcome = agent.Prompt("hi", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->text, "Hello there.");
  EXPECT_EQ(outcome->rounds, 1);
  EXPECT_TRUE(outcome->tools.empty());
  EXPECT_FALSE(outcome->cancelled);
  EXPECT_FALSE(outcome->round_limit_reached);
  EXPECT_EQ(outcome->usage.input_tokens, 12);
  EXPECT_EQ(outcome->usage.output_tokens, 3);
  EXPECT_EQ(texts_, "Hello there.");

  ASSERT_EQ(provider_.requests.size(), 1u);
  const TurnRequest& request = provider_.requests[0];
  EXPECT_EQ(request.model, "test-model");
  EXPECT_EQ(request.max_tokens, 1000);
  ASSERT_EQ(request.messages.size(), 1u);
  EXPECT_EQ(request.messages[0].role, Role::kUser);
  EXPECT_EQ(request.messages[0].text, "hi");

  ASSERT_EQ(agent.messages().size(), 2u);
  EXPECT_EQ(agent.messages()[1].role, Role::kAssistant);
  EXPECT_EQ(agent.messages()[1].text, "Hello there.");
}

TEST_F(AgentTest, AToolCallRunsAndItsResultGoesBackWithItsId) {
  Turn first = Calls({Bash("call_1", "echo from-the-tool")}, "Let me run it.");
  first.usage = {10, 5};
  provider_.Answer(first);
  provider_.Answer(Text("It printed from-the-tool.", 20, 4));
  Agent agent = MakeAgent();
  auto outcome = agent.Prompt("run it", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->text, "It printed from-the-tool.");
  EXPECT_EQ(outcome->rounds, 2);
  EXPECT_EQ(outcome->usage.input_tokens, 30);
  EXPECT_EQ(outcome->usage.output_tokens, 9);
  ASSERT_EQ(outcome->tools.size(), 1u);
  EXPECT_EQ(outcome->tools[0].call.id, "call_1");
  EXPECT_EQ(outcome->tools[0].wrapped["tool_success"], true);
  EXPECT_EQ(outcome->tools[0].wrapped["result"]["output"], "from-the-tool");
  EXPECT_EQ(started_, std::vector<std::string>{"call_1"});
  EXPECT_EQ(ended_, std::vector<std::string>{"call_1"});
  EXPECT_EQ(texts_, "Let me run it.It printed from-the-tool.");

  // The second round sees the call and its result.
  ASSERT_EQ(provider_.requests.size(), 2u);
  const auto& messages = provider_.requests[1].messages;
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].role, Role::kUser);
  EXPECT_EQ(messages[1].role, Role::kAssistant);
  EXPECT_EQ(messages[1].text, "Let me run it.");
  ASSERT_EQ(messages[1].tool_calls.size(), 1u);
  EXPECT_EQ(messages[1].tool_calls[0].id, "call_1");
  EXPECT_EQ(messages[2].role, Role::kToolResults);
  ASSERT_EQ(messages[2].tool_results.size(), 1u);
  EXPECT_EQ(messages[2].tool_results[0].call_id, "call_1");
  EXPECT_EQ(messages[2].tool_results[0].name, "bash");
  const json content = Content(messages[2].tool_results[0]);
  EXPECT_EQ(content["tool_success"], true);
  EXPECT_EQ(content["result"]["output"], "from-the-tool");
  EXPECT_EQ(content["result"]["exit_code"], 0);
  EXPECT_EQ(agent.messages().size(), 4u);
}

// Two commands may touch anything: they run one after the other, in the
// model's order (executor/call_order.h; calls that cannot collide run at
// once, as the executor's tests show).
TEST_F(AgentTest, TheCallsOfOneTurnThatMayCollideRunInTheModelsOrder) {
  provider_.Answer(
      Calls({Bash("call_a", "sleep 1; echo first"), Bash("call_b", "sleep 1; echo second")}));
  provider_.Answer(Text("Both done."));
  Agent agent = MakeAgent();
  const auto start = Clock::now();
  auto outcome = agent.Prompt("two at once", Observer(), cancel_);
  const double took = SecondsSince(start);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_GE(took, 1.95) << "two commands ran at once";
  ASSERT_EQ(provider_.requests.size(), 2u);
  const auto& results = provider_.requests[1].messages.back().tool_results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].call_id, "call_a");
  EXPECT_EQ(Content(results[0])["result"]["output"], "first");
  EXPECT_EQ(results[1].call_id, "call_b");
  EXPECT_EQ(Content(results[1])["result"]["output"], "second");
  ASSERT_EQ(outcome->tools.size(), 2u);
  EXPECT_EQ(outcome->tools[0].call.id, "call_a");
  EXPECT_EQ(outcome->tools[1].call.id, "call_b");
  EXPECT_EQ(ended_, (std::vector<std::string>{"call_a", "call_b"}));
}

TEST_F(AgentTest, InvalidJsonArgumentsAreInvalidParamsAndNothingRuns) {
  testing::TempDir dir;
  const std::string marker = dir / "ran";
  // The second call is valid: the invalid one must not stop it.
  provider_.Answer(Calls({{"call_bad", "bash", "{\"command\": \"touch " + marker + "\""},
                          Bash("call_good", "echo fine")}));
  provider_.Answer(Text("I will fix the arguments."));
  Agent agent = MakeAgent();
  auto outcome = agent.Prompt("break it", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "the call with invalid arguments ran";
  ASSERT_EQ(provider_.requests.size(), 2u);
  const auto& results = provider_.requests[1].messages.back().tool_results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].call_id, "call_bad");
  const json bad = Content(results[0]);
  EXPECT_EQ(bad["tool_success"], false);
  EXPECT_EQ(bad["error_code"], "INVALID_PARAMS");
  EXPECT_NE(bad["error"].get<std::string>().find("not valid JSON"), std::string::npos) << bad;
  EXPECT_EQ(results[1].call_id, "call_good");
  EXPECT_EQ(Content(results[1])["result"]["output"], "fine");
  EXPECT_EQ(ended_, (std::vector<std::string>{"call_bad", "call_good"}));
}

TEST_F(AgentTest, EmptyArgumentsAreAnEmptyObject) {
  provider_.Answer(Calls({{"call_empty", "bash", ""}}));
  provider_.Answer(Text("ok"));
  Agent agent = MakeAgent();
  auto outcome = agent.Prompt("no args", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->tools.size(), 1u);
  const auto& wrapped = outcome->tools[0].wrapped;
  // The tool itself ran with {} and answered that "command" is missing.
  EXPECT_EQ(wrapped["tool_success"], true) << wrapped;
  EXPECT_EQ(wrapped["result"]["error_code"], "INVALID_ARG") << wrapped;
  EXPECT_NE(wrapped["result"]["error"].get<std::string>().find("command"), std::string::npos)
      << wrapped;
}

TEST_F(AgentTest, AnUnknownToolIsToolNotFoundListingTheTools) {
  provider_.Answer(Calls({{"call_x", "no_such_tool", "{\"x\": 1}"}}));
  provider_.Answer(Text("That tool does not exist."));
  Agent agent = MakeAgent();
  auto outcome = agent.Prompt("use a missing tool", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(provider_.requests.size(), 2u);
  const auto& results = provider_.requests[1].messages.back().tool_results;
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].call_id, "call_x");
  const json wrapped = Content(results[0]);
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "TOOL_NOT_FOUND");
  const std::string error = wrapped["error"];
  EXPECT_NE(error.find("no_such_tool"), std::string::npos) << error;
  EXPECT_NE(error.find("bash, file_edit, file_read, file_write, glob, grep"), std::string::npos)
      << error;
}

TEST_F(AgentTest, TheRoundLimitStopsAModelThatKeepsCallingTools) {
  provider_.Always(Calls({Bash("call_loop", "echo again")}));
  Agent agent = MakeAgent({"m", "s", 3, 100});
  auto outcome = agent.Prompt("loop forever", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->round_limit_reached);
  EXPECT_EQ(outcome->rounds, 3);
  EXPECT_EQ(provider_.requests.size(), 3u);
  EXPECT_EQ(outcome->tools.size(), 3u);
  // The conversation stays valid: every call has its result.
  ASSERT_EQ(agent.messages().size(), 7u);
  EXPECT_EQ(agent.messages().back().role, Role::kToolResults);
  EXPECT_EQ(agent.messages().back().tool_results.size(), 1u);
}

TEST_F(AgentTest, CancellingDuringToolsStopsThemAndEveryCallGetsAResult) {
  provider_.Answer(
      Calls({Bash("call_s1", "sleep 30; echo late"), Bash("call_s2", "sleep 30; echo late")}));
  Agent agent = MakeAgent();
  std::thread canceller([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    cancel_.Request();
  });
  const auto start = Clock::now();
  auto outcome = agent.Prompt("sleep", Observer(), cancel_);
  const double took = SecondsSince(start);
  canceller.join();
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->cancelled);
  EXPECT_LT(took, 10.0);
  EXPECT_EQ(provider_.requests.size(), 1u) << "no round after a cancel";
  ASSERT_EQ(outcome->tools.size(), 2u);
  for (const auto& exchange : outcome->tools) {
    EXPECT_EQ(exchange.wrapped["tool_success"], false) << exchange.wrapped;
    EXPECT_EQ(exchange.wrapped["error_code"], "CANCELLED") << exchange.wrapped;
  }
  ASSERT_EQ(agent.messages().size(), 3u);
  const Message& results = agent.messages()[2];
  EXPECT_EQ(results.role, Role::kToolResults);
  ASSERT_EQ(results.tool_results.size(), 2u);
  EXPECT_EQ(results.tool_results[0].call_id, "call_s1");
  EXPECT_EQ(results.tool_results[1].call_id, "call_s2");
  EXPECT_EQ(Content(results.tool_results[1])["error_code"], "CANCELLED");
}

TEST_F(AgentTest, CancellingDuringTheStreamEndsThePromptWithoutAnError) {
  provider_.Do([](const TurnRequest&, const StreamSink&,
                  const std::atomic<bool>& cancel) -> Result<Turn, ProviderError> {
    const auto until = Clock::now() + std::chrono::seconds(10);
    while (!cancel.load() && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return Err(ProviderError{ErrorKind::kCancelled, "cancelled"});
  });
  Agent agent = MakeAgent();
  std::thread canceller([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel_.Request();
  });
  auto outcome = agent.Prompt("stream", Observer(), cancel_);
  canceller.join();
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->cancelled);
  ASSERT_EQ(agent.messages().size(), 1u);
  EXPECT_EQ(agent.messages()[0].text, "stream");
}

TEST_F(AgentTest, AProviderErrorKeepsTheUserMessage) {
  provider_.Fail({ErrorKind::kNetwork, "the connection closed before the answer was complete"});
  provider_.Answer(Text("Now it works."));
  Agent agent = MakeAgent();
  auto failed = agent.Prompt("first try", Observer(), cancel_);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::kNetwork);
  EXPECT_EQ(failed.error().message, "the connection closed before the answer was complete");
  ASSERT_EQ(agent.messages().size(), 1u);
  EXPECT_EQ(agent.messages()[0].role, Role::kUser);
  EXPECT_EQ(agent.messages()[0].text, "first try");

  // The next prompt goes on from there.
  auto next = agent.Prompt("second try", Observer(), cancel_);
  ASSERT_TRUE(next) << next.error().message;
  ASSERT_EQ(provider_.requests.size(), 2u);
  ASSERT_EQ(provider_.requests[1].messages.size(), 2u);
  EXPECT_EQ(provider_.requests[1].messages[0].text, "first try");
  EXPECT_EQ(provider_.requests[1].messages[1].text, "second try");
}

TEST_F(AgentTest, TheToolsAdvertisedAreTheRegistrysAndTheSystemPromptIsPassedThrough) {
  provider_.Answer(Text("ok"));
  Agent agent = MakeAgent({"model-x", "SYSTEM PROMPT TEXT", 5, 77});
  ASSERT_TRUE(agent.Prompt("hello", Observer(), cancel_));
  ASSERT_EQ(provider_.requests.size(), 1u);
  const TurnRequest& request = provider_.requests[0];
  EXPECT_EQ(request.system, "SYSTEM PROMPT TEXT");
  EXPECT_EQ(request.model, "model-x");
  EXPECT_EQ(request.max_tokens, 77);
  const auto& tools = (*core_)->tools();
  ASSERT_EQ(request.tools.size(), tools.size());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tools.size(); ++i) {
    names.push_back(request.tools[i].name);
    EXPECT_EQ(request.tools[i].name, tools[i].name);
    EXPECT_EQ(request.tools[i].parameters, tools[i].schema.parameters) << tools[i].name;
    EXPECT_TRUE(request.tools[i].description.starts_with(tools[i].schema.description))
        << tools[i].name;
    EXPECT_NE(request.tools[i].description.find("tool_success"), std::string::npos)
        << "the wrapper is told in the description of " << tools[i].name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"ask_user", "bash", "file_edit", "file_read",
                                             "file_write", "glob", "grep", "kill_shell", "task",
                                             "task_output", "todo_write", "web_fetch",
                                             "web_search"}));
  EXPECT_EQ(request.tools[1].name, "bash");
  EXPECT_EQ(request.tools[1].parameters["properties"]["command"]["type"], "string");
}

TEST_F(AgentTest, ANewRegistrySnapshotIsSeenByTheNextRound) {
  provider_.Answer(Text("one"));
  provider_.Answer(Text("two"));
  Agent agent = MakeAgent();
  ASSERT_TRUE(agent.Prompt("first", Observer(), cancel_));
  registry_.Set(std::make_shared<const registry::Registry>());
  ASSERT_TRUE(agent.Prompt("second", Observer(), cancel_));
  ASSERT_EQ(provider_.requests.size(), 2u);
  EXPECT_EQ(provider_.requests[0].tools.size(), 13u);
  EXPECT_TRUE(provider_.requests[1].tools.empty());
}

class DenyBash final : public PermissionPolicy {
 public:
  Permission Decide(const ToolCall& call, const registry::Tool* tool) override {
    if (tool != nullptr && call.name == "bash") return {false, "bash is not allowed here."};
    return {true, ""};
  }
};

TEST_F(AgentTest, EveryCallPassesThePermissionPolicy) {
  testing::TempDir dir;
  const std::string marker = dir / "ran";
  provider_.Answer(Calls({Bash("call_denied", "touch " + marker)}));
  provider_.Answer(Text("Denied."));
  DenyBash deny;
  Agent agent(provider_, registry_, executor_, {"m", "s", 5, 100}, deny, nullptr);
  auto outcome = agent.Prompt("touch it", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "a denied call ran";
  ASSERT_EQ(outcome->tools.size(), 1u);
  EXPECT_EQ(outcome->tools[0].wrapped["error_code"], "PERMISSION_DENIED");
  EXPECT_EQ(outcome->tools[0].wrapped["error"], "bash is not allowed here.");
}

TEST_F(AgentTest, TheSessionLogGetsEveryMessageAndTheUsage) {
  testing::TempDir dir;
  auto log = SessionLog::Create(dir / "sessions", {{"provider", "fake"}});
  ASSERT_TRUE(log) << log.error();
  Turn first = Calls({Bash("call_1", "echo logged")});
  first.usage = {7, 2};
  provider_.Answer(first);
  provider_.Answer(Text("Logged.", 9, 1));
  Agent agent(provider_, registry_, executor_, {"m", "s", 5, 100}, permissions_, log->get());
  ASSERT_TRUE(agent.Prompt("log this", Observer(), cancel_));

  auto loaded = LoadSession(dir / "sessions", (*log)->id());
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->messages.size(), 4u);
  EXPECT_EQ(loaded->messages[0].text, "log this");
  EXPECT_EQ(loaded->messages[1].tool_calls[0].id, "call_1");
  EXPECT_EQ(loaded->messages[2].tool_results[0].call_id, "call_1");
  EXPECT_EQ(json::parse(loaded->messages[2].tool_results[0].content)["result"]["output"], "logged");
  EXPECT_EQ(loaded->messages[3].text, "Logged.");
  const std::string text = testing::ReadFile((*log)->path());
  EXPECT_NE(text.find("\"type\":\"usage\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"input_tokens\":9"), std::string::npos) << text;
}

// Long sessions. A summary answer: what the compaction request gets.
Turn Summary(const std::string& text = "## Goal\nsummarized") { return Text(text, 50, 20); }

bool AsksForASummary(const TurnRequest& request) {
  return !request.messages.empty() &&
         request.messages.back().text.find("## Next steps") != std::string::npos;
}

// Past the threshold by the usage the provider reported, the next request
// is preceded by a compaction, and carries the summary instead.
TEST_F(AgentTest, ReportedUsagePastTheThresholdCompactsBeforeTheNextRequest) {
  Turn first = Calls({Bash("call_1", "echo hi")});
  first.usage = {9'000, 100};  // the threshold below is 5000
  provider_.Answer(first);
  provider_.Answer(Summary());
  provider_.Answer(Text("Continued.", 300, 5));
  AgentOptions options{"m", "s", 10, 1000};
  options.context_window = 20'000;
  options.compact_threshold = 5'000;
  Agent agent = MakeAgent(options);
  std::vector<Compaction> compactions;
  AgentObserver observer = Observer();
  observer.on_compaction = [&](const Compaction& c) { compactions.push_back(c); };
  auto outcome = agent.Prompt("do it", observer, cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->text, "Continued.");
  ASSERT_EQ(provider_.requests.size(), 3u);
  EXPECT_FALSE(AsksForASummary(provider_.requests[0]));
  EXPECT_TRUE(AsksForASummary(provider_.requests[1]));
  // The summary request keeps the conversation as its prefix.
  EXPECT_EQ(provider_.requests[1].messages.size(), 4u);
  EXPECT_EQ(provider_.requests[1].system, "s");
  const auto& after = provider_.requests[2].messages;
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(after[0].text.find("## Goal\nsummarized"), std::string::npos);
  EXPECT_NE(after[0].text.find("do it"), std::string::npos) << "the user's words, kept";
  ASSERT_EQ(compactions.size(), 1u);
  EXPECT_TRUE(compactions[0].automatic);
  EXPECT_GE(compactions[0].tokens_before, 9'100);
  EXPECT_LT(compactions[0].tokens_after, 4'500);  // the tools' schemas and the summary
  EXPECT_EQ(texts_, "Continued.") << "the summary is not shown as an answer";
}

// A provider that refuses the request as too long: compact once, send again.
TEST_F(AgentTest, AContextTooLongRefusalCompactsOnceAndRetries) {
  provider_.Fail({ErrorKind::kContextTooLong, "prompt is too long"});
  provider_.Answer(Summary());
  provider_.Answer(Text("After compacting."));
  Agent agent = MakeAgent();
  auto outcome = agent.Prompt("big", Observer(), cancel_);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->text, "After compacting.");
  EXPECT_EQ(outcome->rounds, 1);
  ASSERT_EQ(provider_.requests.size(), 3u);
  EXPECT_TRUE(AsksForASummary(provider_.requests[1]));

  // Refused again after compacting: the error, not another compaction.
  provider_.Fail({ErrorKind::kContextTooLong, "prompt is too long"});
  provider_.Answer(Summary());
  provider_.Fail({ErrorKind::kContextTooLong, "prompt is too long"});
  auto failed = agent.Prompt("bigger", Observer(), cancel_);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::kContextTooLong);
  EXPECT_EQ(provider_.requests.size(), 6u);
}

TEST_F(AgentTest, CompactOnRequestWithAFocusAndTheLogResumesFromIt) {
  testing::TempDir dir;
  auto log = SessionLog::Create(dir / "sessions", {{"provider", "fake"}});
  ASSERT_TRUE(log) << log.error();
  provider_.Answer(Text("One.", 40, 2));
  provider_.Answer(Summary("## Goal\nkept: the parser"));
  Agent agent(provider_, registry_, executor_, {"m", "s", 5, 100}, permissions_, log->get());
  ASSERT_TRUE(agent.Prompt("first", Observer(), cancel_));
  auto compacted = agent.Compact("the parser", Observer(), cancel_);
  ASSERT_TRUE(compacted) << compacted.error().message;
  EXPECT_FALSE(compacted->automatic);
  EXPECT_NE(provider_.requests[1].messages.back().text.find("the parser"), std::string::npos);
  ASSERT_EQ(agent.messages().size(), 1u);

  auto loaded = LoadSession(dir / "sessions", (*log)->id());
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->messages.size(), 1u);
  EXPECT_NE(loaded->messages[0].text.find("kept: the parser"), std::string::npos);
  EXPECT_EQ(loaded->usage.input_tokens, 40 + 50);
}

// The plan (todo_write) outlives a compaction: what carry_over gives is
// kept after the summary, word for word.
TEST_F(AgentTest, ACompactionCarriesThePlanOver) {
  provider_.Answer(Text("One.", 40, 2));
  provider_.Answer(Summary("## Goal\nthe summary"));
  AgentOptions options{"m", "s", 5, 100};
  options.carry_over = [] { return std::string("[>] Fix the parser"); };
  Agent agent(provider_, registry_, executor_, options, permissions_, nullptr);
  ASSERT_TRUE(agent.Prompt("first", Observer(), cancel_));
  ASSERT_TRUE(agent.Compact("", Observer(), cancel_));
  ASSERT_EQ(agent.messages().size(), 1u);
  const std::string& text = agent.messages()[0].text;
  EXPECT_NE(text.find("the summary"), std::string::npos) << text;
  EXPECT_NE(text.find("the summary\n\n[>] Fix the parser"), std::string::npos) << text;
}

// A summary that fails leaves the conversation as it was.
TEST_F(AgentTest, AFailedCompactionChangesNothing) {
  provider_.Answer(Text("One."));
  provider_.Fail({ErrorKind::kNetwork, "down"});
  Agent agent = MakeAgent();
  ASSERT_TRUE(agent.Prompt("first", Observer(), cancel_));
  EXPECT_FALSE(agent.Compact("", Observer(), cancel_));
  EXPECT_EQ(agent.messages().size(), 2u);
}

TEST(ToolSpecsTest, EveryDescriptionTellsTheWrapperAndTheToolsReturns) {
  protocol::ToolSchema schema;
  schema.name = "weather";
  schema.description = "The weather in a city.";
  schema.parameters =
      json::parse(R"({"type": "object", "properties": {"city": {"type": "string"}}})");
  schema.returns =
      json::parse(R"({"type": "object", "properties": {"celsius": {"type": "number"}}})");
  protocol::ToolSchema plain = schema;
  plain.name = "plain";
  plain.returns = nullptr;
  const registry::Registry registry(
      {{"plain", "/x/plain-tool", registry::Source::kUser, plain, {}},
       {"weather", "/x/weather-tool", registry::Source::kProject, schema, {}}},
      {});
  const auto specs = ToolSpecs(registry);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].name, "plain");
  EXPECT_EQ(specs[0].description,
            "The weather in a city.\nResult (inside {\"tool_success\": true, \"result\": ...}): "
            "the tool's JSON object");
  EXPECT_EQ(specs[1].name, "weather");
  EXPECT_EQ(specs[1].parameters, schema.parameters);
  EXPECT_EQ(specs[1].description,
            "The weather in a city.\nResult (inside {\"tool_success\": true, \"result\": ...}): "
            "{\"properties\":{\"celsius\":{\"type\":\"number\"}},\"type\":\"object\"}");
}

}  // namespace
}  // namespace ikigai::agent
