// One-shot mode end to end: the real `ikigai` binary against aimock, for
// every provider. What ikigai sent is checked through aimock's journal
// (Anthropic and Gemini requests are journaled in the OpenAI shape: a
// "system" message, "tool_calls", "tool" messages with "tool_call_id").
#include "oneshot/oneshot.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "agent/session_log.h"
#include "providers/testing/aimock_server.h"
#include "providers/testing/loopback_server.h"
#include "session/call_summary.h"
#include "session/project_store.h"
#include "testing/tool_runner.h"

namespace ikigai::oneshot {
namespace {

using nlohmann::json;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::TempDir;
using testing::ToolRun;
using testing::WriteFile;
using Env = std::vector<std::pair<std::string, std::string>>;

const std::string kIkigai = IKIGAI_BIN;

// Follow-ups (matched by the id of the last tool result) come first: after a
// tool round the last user message is unchanged and would match again.
constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"userMessage": "## Next steps"},
   "response": {"content": "## Goal\nsummary-xyz of the work", "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}},
  {"match": {"userMessage": "summary-xyz"},
   "response": {"content": "Done after compacting.", "usage": {"prompt_tokens": 200, "completion_tokens": 5, "total_tokens": 205}}},
  {"match": {"toolCallId": "call_big"}, "response": {"content": "never asked: compacted first"}},
  {"match": {"userMessage": "os-big-usage"},
   "response": {"toolCalls": [{"id": "call_big", "name": "bash", "arguments": {"command": "echo big"}}],
                "usage": {"prompt_tokens": 17000, "completion_tokens": 10, "total_tokens": 17010}}},
  {"match": {"userMessage": "os-overflow"},
   "response": {"error": {"message": "prompt is too long: 250000 tokens > 200000 maximum", "type": "invalid_request_error"}, "status": 400}},
  {"match": {"userMessage": "os-reasoning"}, "response": {"content": "Thought about it."}},
  {"match": {"toolCallId": "call_echo"}, "response": {"content": "The command printed tool-output-42."}},
  {"match": {"toolCallId": "call_p2"}, "response": {"content": "Both ran."}},
  {"match": {"toolCallId": "call_fail"}, "response": {"content": "The tool failed."}},
  {"match": {"toolCallId": "call_missing"}, "response": {"content": "There is no such tool."}},
  {"match": {"toolCallId": "call_json"},
   "response": {"content": "JSON done.", "usage": {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34}}},
  {"match": {"toolCallId": "call_sleep"}, "response": {"content": "never asked"}},
  {"match": {"toolCallId": "call_look"}, "response": {"content": "Found it."}},
  {"match": {"userMessage": "os-escape"},
   "response": {"content": "raw \u001b[31mred\u001b[0m \u001b]0;title\u0007 kept"}},
  {"match": {"userMessage": "os-plain"},
   "response": {"content": "Hello from the mock.", "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}},
  {"match": {"userMessage": "os-one-tool"},
   "response": {"toolCalls": [{"id": "call_echo", "name": "bash", "arguments": {"command": "echo tool-output-42"}}]}},
  {"match": {"userMessage": "os-two-tools"},
   "response": {"toolCalls": [
     {"id": "call_p1", "name": "bash", "arguments": {"command": "sleep 0.3; echo first"}},
     {"id": "call_p2", "name": "bash", "arguments": {"command": "echo second"}}]}},
  {"match": {"userMessage": "os-fail"},
   "response": {"toolCalls": [{"id": "call_fail", "name": "failing", "arguments": {"what": "x"}}]}},
  {"match": {"userMessage": "os-missing"},
   "response": {"toolCalls": [{"id": "call_missing", "name": "no_such_tool", "arguments": {"x": 1}}]}},
  {"match": {"userMessage": "os-json"},
   "response": {"toolCalls": [{"id": "call_json", "name": "bash", "arguments": {"command": "echo json-run"}}]}},
  {"match": {"userMessage": "os-sleep"},
   "response": {"toolCalls": [{"id": "call_sleep", "name": "bash", "arguments": {"command": "echo $$ > sleeper.pid; exec sleep 30"}}]}},
  {"match": {"userMessage": "os-text-and-tool"},
   "response": {"content": "Let me look.", "toolCalls": [{"id": "call_look", "name": "bash", "arguments": {"command": "echo looked"}}]}},
  {"match": {"userMessage": "os-limit", "sequenceIndex": 0},
   "response": {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}, "status": 429, "retryAfter": 1}},
  {"match": {"userMessage": "os-limit", "sequenceIndex": 1}, "response": {"content": "After the wait."}},
  {"match": {"userMessage": "os-cut"}, "truncateAfterChunks": 3, "latency": 10,
   "response": {"content": "This answer is long enough to be cut off after a few chunks of text, and then some more."}},
  {"match": {"userMessage": "os-slow"}, "latency": 250, "chunkSize": 2,
   "response": {"content": "Slowly, two letters at a time, this answer takes ten seconds or more to come."}},
  {"match": {"userMessage": "os-malformed"}, "chaos": {"malformedRate": 1},
   "response": {"content": "never seen"}},
  {"match": {"userMessage": "os-resume-1"}, "response": {"content": "First answer."}},
  {"match": {"userMessage": "os-resume-2"}, "response": {"content": "Second answer."}},
  {"match": {"userMessage": "os-stdin"}, "response": {"content": "Read from stdin."}}
]})";

const std::vector<std::string> kCoreTools = {
    "ask_user",   "bash", "file_edit",   "file_read",  "file_write", "glob",      "grep",
    "kill_shell", "task", "task_output", "todo_write", "web_fetch",  "web_search"};

class OneShotTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);  // fresh sequences and journal
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    ::mkdir(project().c_str(), 0755);
    // The project's own .ikigai/ (tools, config) loads only when trusted.
    ASSERT_TRUE(session::ProjectStore(home_ / ".ikigai/projects.json").SetTrusted(project(), true));
  }

  bool openai() const { return GetParam() == "openai"; }
  bool gemini() const { return GetParam() == "gemini"; }
  std::string key_variable() const {
    if (gemini()) return "GEMINI_API_KEY";
    return openai() ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
  }
  std::string base_url_variable() const {
    if (gemini()) return "GOOGLE_GEMINI_BASE_URL";
    return openai() ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL";
  }
  std::string base_url() const {
    if (gemini()) return aimock_->url();
    return openai() ? aimock_->openai_base_url() : aimock_->anthropic_base_url();
  }
  std::string default_model() const {
    if (gemini()) return "gemini-2.5-flash";
    return openai() ? "gpt-4.1" : "claude-sonnet-4-5";
  }
  // Whether `path` is where this provider's requests go (Gemini's names the
  // model, which aimock journals as the body's "model").
  bool IsEndpoint(const std::string& path) const {
    if (gemini()) {
      return path.starts_with("/v1beta/models/") &&
             path.ends_with(":streamGenerateContent?alt=sse");
    }
    return path == (openai() ? "/v1/chat/completions" : "/v1/messages");
  }
  std::string project() const { return home_ / "project"; }
  std::string sessions() const { return home_ / ".ikigai/sessions"; }

  // The environment of a run: only this provider's variables set, with
  // `key`; whatever the test process has is overridden (empty is unset).
  Env Environment(const std::string& key = AimockServer::kApiKey) const {
    Env env = {{"HOME", home_.path()},
               {"OPENAI_API_KEY", ""},
               {"ANTHROPIC_API_KEY", ""},
               {"GEMINI_API_KEY", ""},
               {"OPENAI_BASE_URL", ""},
               {"ANTHROPIC_BASE_URL", ""},
               {"GOOGLE_GEMINI_BASE_URL", ""},
               {"IKIGAI_PROVIDER", ""},
               {"IKIGAI_MODEL", ""},
               {"IKIGAI_TOOL_TIMEOUT_MS", ""},
               // Most tests run commands: "auto" lets them, as a user would.
               {"IKIGAI_PERMISSIONS", "auto"}};
    for (auto& [name, value] : env) {
      if (name == key_variable()) value = key;
      if (name == base_url_variable()) value = base_url();
    }
    return env;
  }

  // `ikigai --provider P ARGS...` in the project directory.
  ToolRun Ikigai(const std::vector<std::string>& args, const std::string& input = "",
                 const Env& env = {}) const {
    std::vector<std::string> argv = {"--provider", GetParam()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunWith(kIkigai, argv, input, env.empty() ? Environment() : env);
  }
  ToolRun RunWith(const std::string& program, const std::vector<std::string>& argv,
                  const std::string& input, const Env& env) const {
    return testing::RunExecutable(
        program, input,
        {.argv_extra = argv, .env = env, .cwd = project(), .timeout = std::chrono::seconds(60)});
  }

  static json Journal() {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    return journal ? *journal : json::array();
  }
  // The request bodies ikigai sent, oldest first.
  std::vector<json> Requests() const {
    std::vector<json> bodies;
    for (const json& entry : Journal()) {
      EXPECT_TRUE(IsEndpoint(entry.value("path", ""))) << entry["path"];
      bodies.push_back(entry["body"]);
    }
    return bodies;
  }

  static std::vector<std::string> ToolNames(const json& body) {
    std::vector<std::string> names;
    for (const json& tool : body["tools"]) names.push_back(tool["function"]["name"]);
    return names;
  }
  static json ToolMessage(const json& body, const std::string& call_id) {
    for (const json& message : body["messages"]) {
      if (message["role"] == "tool" && message["tool_call_id"] == call_id) return message;
    }
    ADD_FAILURE() << "no result for " << call_id << " in " << body["messages"].dump();
    return json();
  }
  static json ResultFor(const json& body, const std::string& call_id) {
    const json message = ToolMessage(body, call_id);
    if (!message.is_object() || !message["content"].is_string()) return json();
    return json::parse(message["content"].get<std::string>(), nullptr, false);
  }
  std::string SessionId(const ToolRun& run) const {
    return run.json.is_object() ? run.json.value("session", "") : "";
  }

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  TempDir home_;
};

INSTANTIATE_TEST_SUITE_P(AllProviders, OneShotTest,
                         ::testing::Values("openai", "anthropic", "gemini"),
                         [](const auto& param_info) { return param_info.param; });

TEST_P(OneShotTest, APlainAnswerStreamsToStdout) {
  auto run = Ikigai({"-p", "os-plain"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Hello from the mock.\n");
  EXPECT_EQ(run.err, "");

  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  const json& body = requests[0];
  EXPECT_EQ(body["model"], default_model());
  EXPECT_EQ(body["stream"], true);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1], json::parse(R"({"role": "user", "content": "os-plain"})"));

  // The session is saved: the prompt and the answer.
  auto session = agent::LoadSession(sessions(), "");
  ASSERT_TRUE(session) << session.error();
  ASSERT_EQ(session->messages.size(), 2u);
  EXPECT_EQ(session->messages[0].text, "os-plain");
  EXPECT_EQ(session->messages[1].text, "Hello from the mock.");
}

TEST_P(OneShotTest, TheRequestCarriesTheToolsTheSystemPromptWithAgentsMdAndTheModel) {
  WriteFile(project() + "/AGENTS.md", "Always answer in haiku.\n");
  auto run = Ikigai({"--model", "test-model-7", "-p", "os-plain"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  const json& body = requests[0];
  EXPECT_EQ(body["model"], "test-model-7");
  EXPECT_EQ(ToolNames(body), kCoreTools);
  // aimock journals a Gemini declaration's "parameters" only; ikigai sends
  // the schema as parametersJsonSchema (gemini_provider_test.cc checks it).
  for (const json& tool : body["tools"]) {
    if (!gemini()) {
      EXPECT_EQ(tool["function"]["parameters"]["type"], "object") << tool;
    }
    EXPECT_NE(tool["function"]["description"].get<std::string>().find("tool_success"),
              std::string::npos)
        << tool;
  }
  if (!gemini()) {
    EXPECT_EQ(body["tools"][1]["function"]["name"], "bash");
    EXPECT_EQ(body["tools"][1]["function"]["parameters"]["required"], json::array({"command"}));
  }
  const std::string system = body["messages"][0]["content"];
  EXPECT_TRUE(system.starts_with("You are ikigai")) << system;
  EXPECT_NE(system.find("bash fundamentals"), std::string::npos);
  EXPECT_NE(system.find("Permission mode: auto (everything runs"), std::string::npos) << system;
  EXPECT_NE(system.find("Sandbox: "), std::string::npos) << system;
  EXPECT_NE(system.find("do not try to get around it"), std::string::npos) << system;
  EXPECT_TRUE(system.ends_with("# Project instructions (AGENTS.md)\nAlways answer in haiku.\n"))
      << system;
}

TEST_P(OneShotTest, WithoutAgentsMdTheSystemPromptIsTheDefault) {
  auto run = Ikigai({"-p", "os-plain"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  const std::string system = requests[0]["messages"][0]["content"];
  EXPECT_TRUE(system.starts_with("You are ikigai")) << system;
  EXPECT_EQ(system.find("AGENTS.md"), std::string::npos) << system;
}

// Nobody can answer in -p: "ask" means refused, and the model learns which
// flag or rule would allow the call; a read-only command still runs.
TEST_P(OneShotTest, InAskModeACommandIsRefusedWithTheFlagThatAllowsIt) {
  Env env = Environment();
  for (auto& [name, value] : env) {
    if (name == "IKIGAI_PERMISSIONS") value = "";
  }
  auto run = Ikigai({"-p", "os-sleep", "--output", "json"}, "", env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(std::filesystem::exists(project() + "/sleeper.pid")) << "the command ran";
  const json out = json::parse(run.out);
  const json& wrapped = out["tool_calls"][0]["result"];
  EXPECT_EQ(wrapped["error_code"], "PERMISSION_DENIED") << wrapped.dump();
  const std::string error = wrapped["error"];
  EXPECT_NE(error.find("--permissions auto"), std::string::npos) << error;
  EXPECT_NE(error.find("permissions.allow"), std::string::npos) << error;

  auto read_only = Ikigai({"-p", "os-one-tool", "--output", "json"}, "", env);
  EXPECT_EQ(json::parse(read_only.out)["tool_calls"][0]["result"]["result"]["output"],
            "tool-output-42")
      << read_only.out;
  auto flagged =
      Ikigai({"--permissions", "read-only", "-p", "os-sleep", "--output", "json"}, "", env);
  EXPECT_NE(json::parse(flagged.out)["tool_calls"][0]["result"]["error"].get<std::string>().find(
                "read-only"),
            std::string::npos);
}

TEST_P(OneShotTest, TheConfiguredSystemPromptModelAndProviderAreUsed) {
  WriteFile(project() + "/AGENTS.md", "Not wanted.\n");
  ::mkdir((project() + "/.ikigai").c_str(), 0755);
  WriteFile(
      project() + "/.ikigai/config.json",
      R"({"system_prompt": "You are a test double.", "agents_md": false, "max_tokens": 321})");
  // The provider and model from the environment, no flags.
  Env env = Environment();
  for (auto& [name, value] : env) {
    if (name == "IKIGAI_PROVIDER") value = GetParam();
    if (name == "IKIGAI_MODEL") value = "model-from-env";
  }
  auto run = RunWith(kIkigai, {"-p", "os-plain"}, "", env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  // The configured prompt, then what the mode and the sandbox allow.
  const std::string system = requests[0]["messages"][0]["content"];
  EXPECT_TRUE(system.starts_with("You are a test double.\n\n# Permissions and sandbox\n"))
      << system;
  EXPECT_EQ(system.find("Not wanted"), std::string::npos) << system;
  EXPECT_EQ(requests[0]["model"], "model-from-env");
  EXPECT_EQ(requests[0]["max_tokens"], 321);
}

TEST_P(OneShotTest, OneToolCallRunsAndItsResultGoesBackWithItsId) {
  auto run = Ikigai({"-p", "os-one-tool"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "The command printed tool-output-42.\n");
  EXPECT_NE(run.err.find("[tool] bash: echo tool-output-42\n"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("[tool] bash -> ok ("), std::string::npos) << run.err;

  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const json& messages = requests[1]["messages"];
  ASSERT_EQ(messages.size(), 4u) << messages;
  EXPECT_EQ(messages[1]["content"], "os-one-tool");
  EXPECT_EQ(messages[2]["role"], "assistant");
  ASSERT_EQ(messages[2]["tool_calls"].size(), 1u);
  EXPECT_EQ(messages[2]["tool_calls"][0]["id"], "call_echo");
  EXPECT_EQ(messages[2]["tool_calls"][0]["function"]["name"], "bash");
  EXPECT_EQ(json::parse(messages[2]["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            json::parse(R"({"command": "echo tool-output-42"})"));
  EXPECT_EQ(messages[3]["role"], "tool");
  EXPECT_EQ(messages[3]["tool_call_id"], "call_echo");
  const json result = ResultFor(requests[1], "call_echo");
  EXPECT_EQ(result["tool_success"], true) << result;
  EXPECT_EQ(result["result"]["output"], "tool-output-42");
  EXPECT_EQ(result["result"]["exit_code"], 0);
}

TEST_P(OneShotTest, TwoParallelToolCallsEachGetTheirResultInOrder) {
  auto run = Ikigai({"-p", "os-two-tools"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Both ran.\n");
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const json& messages = requests[1]["messages"];
  ASSERT_EQ(messages.size(), 5u) << messages;
  EXPECT_EQ(messages[2]["tool_calls"][0]["id"], "call_p1");
  EXPECT_EQ(messages[2]["tool_calls"][1]["id"], "call_p2");
  // In the order of the calls, though the first finished last.
  EXPECT_EQ(messages[3]["tool_call_id"], "call_p1");
  EXPECT_EQ(messages[4]["tool_call_id"], "call_p2");
  EXPECT_EQ(ResultFor(requests[1], "call_p1")["result"]["output"], "first");
  EXPECT_EQ(ResultFor(requests[1], "call_p2")["result"]["output"], "second");
  const auto first_start = run.err.find("[tool] bash: sleep 0.3; echo first");
  const auto second_start = run.err.find("[tool] bash: echo second");
  EXPECT_NE(first_start, std::string::npos) << run.err;
  EXPECT_LT(first_start, second_start) << run.err;
}

TEST_P(OneShotTest, AToolThatFailsIsReportedAsToolCrashed) {
  ::mkdir((project() + "/.ikigai").c_str(), 0755);
  ::mkdir((project() + "/.ikigai/tools").c_str(), 0755);
  WriteFile(project() + "/.ikigai/tools/failing-tool",
            "#!/bin/sh\n"
            "if [ \"$1\" = --schema ]; then echo '{\"name\": \"failing\", \"description\": "
            "\"Always fails.\", \"parameters\": {\"type\": \"object\", \"properties\": {\"what\": "
            "{\"type\": \"string\"}}}}'; exit 0; fi\n"
            "cat >/dev/null; echo 'disk on fire' >&2; exit 3\n",
            0755);
  auto run = Ikigai({"-p", "os-fail"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "The tool failed.\n");
  EXPECT_NE(run.err.find("[tool] failing -> TOOL_CRASHED ("), std::string::npos) << run.err;

  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  auto names = ToolNames(requests[0]);
  EXPECT_NE(std::find(names.begin(), names.end(), "failing"), names.end()) << "a project tool";
  const json result = ResultFor(requests[1], "call_fail");
  EXPECT_EQ(result["tool_success"], false) << result;
  EXPECT_EQ(result["error_code"], "TOOL_CRASHED");
  EXPECT_EQ(result["exit_code"], 3);
  EXPECT_NE(result["stderr"].get<std::string>().find("disk on fire"), std::string::npos) << result;
}

TEST_P(OneShotTest, ACallToAToolThatDoesNotExistIsToolNotFound) {
  auto run = Ikigai({"-p", "os-missing"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "There is no such tool.\n");
  EXPECT_NE(run.err.find("[tool] no_such_tool -> TOOL_NOT_FOUND"), std::string::npos) << run.err;
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const json result = ResultFor(requests[1], "call_missing");
  EXPECT_EQ(result["tool_success"], false) << result;
  EXPECT_EQ(result["error_code"], "TOOL_NOT_FOUND");
  EXPECT_NE(result["error"].get<std::string>().find("no_such_tool"), std::string::npos) << result;
}

TEST_P(OneShotTest, ARateLimitIsRetriedThenTheAnswerComes) {
  auto run = Ikigai({"-p", "os-limit"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "After the wait.\n");
  EXPECT_NE(run.err.find("[retry] rate limited (HTTP 429"), std::string::npos) << run.err;
  EXPECT_EQ(Journal().size(), 2u);
}

TEST_P(OneShotTest, AStreamCutOffMidwayFailsClearlyAndKeepsTheConversation) {
  auto run = Ikigai({"-p", "os-cut"});
  EXPECT_EQ(run.term_signal, 0) << "crashed";
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("ikigai: the connection closed before the answer was complete"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("The conversation is saved: ikigai --resume "), std::string::npos)
      << run.err;
  auto session = agent::LoadSession(sessions(), "");
  ASSERT_TRUE(session) << session.error();
  ASSERT_EQ(session->messages.size(), 1u);
  EXPECT_EQ(session->messages[0].role, providers::Role::kUser);
  EXPECT_EQ(session->messages[0].text, "os-cut");
  EXPECT_NE(run.err.find(session->id), std::string::npos) << run.err;
}

TEST_P(OneShotTest, AMalformedChunkFailsClearly) {
  auto run = Ikigai({"-p", "os-malformed"});
  EXPECT_EQ(run.term_signal, 0) << "crashed";
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("malformed JSON"), std::string::npos) << run.err;
}

TEST_P(OneShotTest, AWrongKeyFailsNamingTheVariable) {
  auto run = Ikigai({"-p", "os-plain"}, "", Environment("wrong-key"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("HTTP 401"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("set " + key_variable() + " to a valid key"), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("wrong-key"), std::string::npos) << "the key is not echoed";
  EXPECT_EQ(run.out, "") << "nothing was answered";
}

TEST_P(OneShotTest, NoKeyAtAllExitsTwoWithAHintAndSendsNothing) {
  auto run = Ikigai({"-p", "os-plain"}, "", Environment(""));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("no API key for the " + GetParam() + " provider"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("Set " + key_variable()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("docs/configuration.md"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("ikigai tool"), std::string::npos) << "tools work without a key";
  EXPECT_EQ(Journal().size(), 0u);

  // The tool commands still work.
  auto tool = RunWith(kIkigai, {"tool", "call", "bash", R"({"command": "echo keyless"})"}, "",
                      Environment(""));
  EXPECT_EQ(tool.exit_code, 0) << tool.err;
  EXPECT_EQ(tool.json["result"]["output"], "keyless");
}

TEST_P(OneShotTest, JsonOutputIsOneObjectWithTextToolCallsAndUsage) {
  auto run = Ikigai({"--output", "json", "-p", "os-json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(run.json.is_object()) << "stdout is not one JSON object: " << run.out;
  const json& j = run.json;
  EXPECT_EQ(j["text"], "JSON done.");
  ASSERT_EQ(j["tool_calls"].size(), 1u) << j;
  const json& call = j["tool_calls"][0];
  EXPECT_EQ(call["id"], "call_json");
  EXPECT_EQ(call["name"], "bash");
  EXPECT_EQ(call["arguments"], json::parse(R"({"command": "echo json-run"})"));
  EXPECT_EQ(call["result"]["tool_success"], true);
  EXPECT_EQ(call["result"]["result"]["output"], "json-run");
  EXPECT_GE(j["usage"]["input_tokens"].get<long>(), 30) << j;
  EXPECT_GE(j["usage"]["output_tokens"].get<long>(), 4) << j;
  EXPECT_EQ(j["rounds"], 2);
  EXPECT_FALSE(SessionId(run).empty()) << j;
  EXPECT_TRUE(std::filesystem::exists(sessions() + "/" + SessionId(run) + ".jsonl"));
}

// Piped, the answer is passed on byte for byte (a script may want the
// escapes); only a terminal gets them made visible (the REPL's tests).
TEST_P(OneShotTest, APipedAnswerStaysByteExact) {
  auto run = Ikigai({"-p", "os-escape"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "raw \x1b[31mred\x1b[0m \x1b]0;title\x07 kept\n");
}

TEST_P(OneShotTest, JsonOutputOfAPlainAnswerHasNoToolCalls) {
  auto run = Ikigai({"--output", "json", "-p", "os-plain"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(run.json.is_object()) << run.out;
  EXPECT_EQ(run.json["text"], "Hello from the mock.");
  EXPECT_EQ(run.json["tool_calls"], json::array());
  EXPECT_EQ(json::parse(run.json["usage"].dump()),
            json::parse(R"({"input_tokens": 11, "output_tokens": 7, "cache_read_tokens": 0,
                            "cache_write_tokens": 0})"));
}

TEST_P(OneShotTest, ResumeContinuesTheLastSessionOrTheOneNamed) {
  auto first = Ikigai({"--output", "json", "-p", "os-resume-1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string first_id = SessionId(first);
  ASSERT_FALSE(first_id.empty()) << first.out;
  std::filesystem::last_write_time(
      sessions() + "/" + first_id + ".jsonl",
      std::filesystem::file_time_type::clock::now() - std::chrono::seconds(10));
  auto other = Ikigai({"-p", "os-plain"});  // a newer session
  ASSERT_EQ(other.exit_code, 0) << other.err;

  // --resume alone: the newest, the os-plain one.
  auto last = Ikigai({"--resume", "-p", "os-resume-2"});
  EXPECT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(last.out, "Second answer.\n");
  auto requests = Requests();
  ASSERT_EQ(requests.size(), 3u);
  json messages = requests.back()["messages"];
  ASSERT_EQ(messages.size(), 4u) << messages;
  EXPECT_EQ(messages[1]["content"], "os-plain");
  EXPECT_EQ(messages[2]["content"], "Hello from the mock.");
  EXPECT_EQ(messages[3]["content"], "os-resume-2");

  // --resume ID: that one.
  auto named = Ikigai({"--resume", first_id, "-p", "os-resume-2"});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  requests = Requests();
  ASSERT_EQ(requests.size(), 4u);
  messages = requests.back()["messages"];
  ASSERT_EQ(messages.size(), 4u) << messages;
  EXPECT_EQ(messages[1]["content"], "os-resume-1");
  EXPECT_EQ(messages[2]["content"], "First answer.");
  EXPECT_EQ(messages[3]["content"], "os-resume-2");
  // The resumed session's file goes on: it now holds both prompts.
  auto session = agent::LoadSession(sessions(), first_id);
  ASSERT_TRUE(session) << session.error();
  ASSERT_EQ(session->messages.size(), 4u);
  EXPECT_EQ(session->messages[3].text, "Second answer.");
  EXPECT_EQ(testing::ListDir(sessions()).size(), 2u) << "resuming makes no new session";

  auto elsewhere =
      RunWith(kIkigai, {"--provider", GetParam(), "--resume", "-p", "os-resume-2"}, "", [&] {
        Env env = Environment();
        env[0].second = home_ / "project";  // a HOME without sessions
        return env;
      }());
  EXPECT_EQ(elsewhere.exit_code, 2);
  EXPECT_NE(elsewhere.err.find("cannot resume: no saved session in"), std::string::npos)
      << elsewhere.err;
  auto unknown = Ikigai({"--resume", "no-such-session", "-p", "os-resume-2"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no-such-session"), std::string::npos) << unknown.err;
  EXPECT_EQ(Journal().size(), 4u);
}

TEST_P(OneShotTest, ThePromptCanComeFromStdin) {
  auto dash = Ikigai({"-p", "-"}, "os-stdin: what is in this file?\n");
  EXPECT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_EQ(dash.out, "Read from stdin.\n");
  auto bare = Ikigai({"-p"}, "os-stdin again");
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(bare.out, "Read from stdin.\n");
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[0]["messages"][1]["content"].get<std::string>().find(
                "os-stdin: what is in this file?"),
            std::string::npos);
  EXPECT_EQ(requests[1]["messages"][1]["content"], "os-stdin again");

  auto empty = Ikigai({"-p", "-"}, " \n");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("the prompt is empty"), std::string::npos) << empty.err;
}

TEST_P(OneShotTest, TheRoundLimitFromTheConfigurationStopsThePrompt) {
  ::mkdir((project() + "/.ikigai").c_str(), 0755);
  WriteFile(project() + "/.ikigai/config.json", R"({"max_rounds": 1})");
  auto run = Ikigai({"-p", "os-one-tool"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("stopped after 1 rounds (max_rounds)"), std::string::npos) << run.err;
  EXPECT_EQ(Journal().size(), 1u);
}

// Whether `pid` is gone (or a zombie waiting for its parent).
bool Gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
}

bool GoneWithin(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!Gone(pid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    ::usleep(20 * 1000);
  }
  return true;
}

TEST_P(OneShotTest, ASignalStopsTheRunningToolsAndEndsTheTurn) {
  // Ctrl+C (SIGINT), or SIGTERM / SIGHUP from a supervisor, while bash runs
  // `sleep 30`: the command's process group is killed, the call is
  // answered CANCELLED in the session, and ikigai exits 128 + the signal.
  for (const auto& [name, number] : std::vector<std::pair<std::string, int>>{
           {"INT", SIGINT}, {"TERM", SIGTERM}, {"HUP", SIGHUP}}) {
    SCOPED_TRACE("SIG" + name);
    ASSERT_TRUE(aimock_->SetFixtures(kFixtures));
    std::filesystem::remove_all(sessions());
    std::filesystem::remove(project() + "/sleeper.pid");
    // The signal goes to ikigai alone, as a terminal's Ctrl+C does (the
    // tools run in process groups of their own, which it does not reach, so
    // ikigai must stop them), once the command runs, however long a busy
    // machine takes to get there.
    const std::string pid_file = project() + "/sleeper.pid";
    const std::string script = "'" + kIkigai + "' --provider " + GetParam() +
                               " -p os-sleep & pid=$!\n"
                               "n=0; until [ -s '" +
                               pid_file +
                               "' ] || [ $n -ge 1200 ]; do sleep 0.05; n=$((n+1)); done\n"
                               "kill -s " +
                               name + " $pid; wait $pid\n";
    auto run = RunWith("/bin/sh", {"-c", script}, "", Environment());
    EXPECT_EQ(run.exit_code, 128 + number) << run.err;
    EXPECT_NE(run.err.find("[tool] bash -> CANCELLED"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("ikigai: interrupted"), std::string::npos) << run.err;
    EXPECT_EQ(Journal().size(), 1u) << "no round after the interrupt";

    ASSERT_TRUE(std::filesystem::exists(pid_file)) << "the tool never ran: " << run.err;
    const pid_t sleeper = std::stoi(testing::ReadFile(pid_file));
    EXPECT_TRUE(GoneWithin(sleeper, std::chrono::seconds(3))) << "the command kept running";
    if (!Gone(sleeper)) ::kill(sleeper, SIGKILL);

    auto session = agent::LoadSession(sessions(), "");
    ASSERT_TRUE(session) << session.error();
    ASSERT_EQ(session->messages.size(), 3u);
    ASSERT_EQ(session->messages[2].tool_results.size(), 1u);
    EXPECT_EQ(session->messages[2].tool_results[0].call_id, "call_sleep");
    EXPECT_EQ(json::parse(session->messages[2].tool_results[0].content)["error_code"], "CANCELLED");
  }
}

TEST_P(OneShotTest, ASignalDuringTheStreamClosesIt) {
  // The answer would take over ten seconds; Ctrl+C once it has started
  // (however long a busy machine takes to get there) stops it.
  const std::string out = project() + "/answer.txt";
  const std::string script = "'" + kIkigai + "' --provider " + GetParam() + " -p os-slow > '" +
                             out +
                             "' & pid=$!\n"
                             "n=0; until grep -q Sl '" +
                             out +
                             "' || [ $n -ge 600 ]; do sleep 0.05; n=$((n+1)); done\n"
                             "kill -INT $pid; start=$(date +%s%N); wait $pid; status=$?\n"
                             "echo $(( ($(date +%s%N) - start) / 1000000 )) > '" +
                             out + ".ms'; exit $status\n";
  auto run = RunWith("/bin/sh", {"-c", script}, "", Environment());
  std::ifstream answer(out), stop_ms(out + ".ms");
  run.out.assign(std::istreambuf_iterator<char>(answer), {});
  long ms = -1;
  stop_ms >> ms;
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_GE(ms, 0);
  EXPECT_LT(ms, 5000) << "Ctrl+C took effect within seconds, not at the end of the answer";
  EXPECT_NE(run.err.find("ikigai: interrupted"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.starts_with("Sl")) << "the start was shown: " << run.out;
  EXPECT_TRUE(run.out.ends_with("\n")) << run.out;
  EXPECT_EQ(run.out.find("ten seconds"), std::string::npos) << run.out;
  auto session = agent::LoadSession(sessions(), "");
  ASSERT_TRUE(session) << session.error();
  ASSERT_EQ(session->messages.size(), 1u);
  EXPECT_EQ(session->messages[0].text, "os-slow");
}

TEST_P(OneShotTest, TextBeforeAToolCallEndsItsLine) {
  auto run = Ikigai({"-p", "os-text-and-tool"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Let me look.\nFound it.\n");
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1]["messages"][2]["content"], "Let me look.");
  EXPECT_EQ(ResultFor(requests[1], "call_look")["result"]["output"], "looked");
}

TEST_P(OneShotTest, ResumingASessionCutDuringToolsAnswersTheOpenCalls) {
  // A session killed while its tools ran (a second Ctrl+C exits at once, or
  // SIGKILL): the last assistant turn has calls without results, which
  // both APIs refuse. Resuming answers them first.
  ::mkdir((home_ / ".ikigai").c_str(), 0700);
  ::mkdir(sessions().c_str(), 0700);
  WriteFile(
      sessions() + "/20250101-000000-aaaaaa.jsonl",
      json{{"type", "session"},
           {"id", "20250101-000000-aaaaaa"},
           {"provider", "x"},
           {"model", "m"},
           {"cwd", project()}}
              .dump() +
          "\n"
          R"({"type":"message","role":"user","text":"run the build"})"
          "\n"
          R"({"type":"message","role":"assistant","text":"","tool_calls":[{"id":"call_dangling","name":"bash","arguments":"{\"command\":\"make\"}"}]})"
          "\n");
  auto run = Ikigai({"--resume", "-p", "os-resume-2 go on"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Second answer.\n");
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  const json& messages = requests[0]["messages"];
  ASSERT_EQ(messages.size(), 5u) << messages;
  EXPECT_EQ(messages[2]["tool_calls"][0]["id"], "call_dangling");
  const json result = ResultFor(requests[0], "call_dangling");
  EXPECT_EQ(result["tool_success"], false) << result;
  EXPECT_EQ(result["error_code"], "CANCELLED") << result;
  // The result and the new prompt follow the calls. (On the Anthropic wire
  // they are one user message, results first; aimock's journal lists its
  // text before its results.)
  std::set<std::string> roles = {messages[3]["role"], messages[4]["role"]};
  EXPECT_EQ(roles, (std::set<std::string>{"tool", "user"}));
  const json& prompt = messages[3]["role"] == "user" ? messages[3] : messages[4];
  EXPECT_EQ(prompt["content"], "os-resume-2 go on");
}

// Another folder's conversation must not continue here, its tools now acting
// on this folder: --resume without an id looks only at this folder's.
// Long sessions. A small context window (20000 tokens: compacted past 16000,
// above what the tools and the prompt alone take) and a first answer that
// reports 17000 tokens of input: the next request is preceded by a
// compaction, and carries the summary instead.
TEST_P(OneShotTest, ReportedUsagePastTheThresholdCompactsAndTheSessionGoesOn) {
  ::mkdir((home_ / ".ikigai").c_str(), 0700);
  WriteFile(home_ / ".ikigai/config.json", R"({"context_window": 20000})");
  auto run = Ikigai({"-p", "os-big-usage", "--output", "json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.json["text"], "Done after compacting.") << run.out;
  EXPECT_NE(run.err.find("[compact] Context compacted: "), std::string::npos) << run.err;
  const auto requests = Requests();
  ASSERT_EQ(requests.size(), 3u);
  // The summary is asked with the conversation as its prefix.
  const std::string asked = requests[1]["messages"].dump();
  EXPECT_NE(asked.find("## Next steps"), std::string::npos) << asked;
  EXPECT_NE(asked.find("call_big"), std::string::npos) << asked;
  const std::string after = requests[2]["messages"].dump();
  EXPECT_NE(after.find("summary-xyz"), std::string::npos) << after;
  EXPECT_NE(after.find("os-big-usage"), std::string::npos) << "the user's own words";
  EXPECT_EQ(after.find("call_big"), std::string::npos) << "the old turns are gone: " << after;
  // Every request counts, the summary's too.
  EXPECT_EQ(run.json["usage"]["input_tokens"], 17000 + 100 + 200) << run.json["usage"];
  EXPECT_EQ(run.json["usage"]["output_tokens"], 10 + 20 + 5) << run.json["usage"];

  // Resumed, the conversation goes on from the summary, not the whole history.
  auto resumed = Ikigai({"--resume", "-p", "os-resume-1 and then?"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  const std::string next = Requests().back()["messages"].dump();
  EXPECT_NE(next.find("summary-xyz"), std::string::npos) << next;
  EXPECT_EQ(next.find("call_big"), std::string::npos) << next;
}

// The provider refuses the request as too long for the context: compacted
// once, sent again.
TEST_P(OneShotTest, AContextTooLongRefusalCompactsAndRetries) {
  auto run = Ikigai({"-p", "os-overflow please"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Done after compacting.\n");
  EXPECT_NE(run.err.find("[compact] Context compacted: "), std::string::npos) << run.err;
  EXPECT_EQ(Requests().size(), 3u);
}

// OpenAI's reasoning models take max_completion_tokens and reasoning_effort;
// the other providers keep their own limit and ignore reasoning_effort.
TEST_P(OneShotTest, ReasoningModelsGetTheirParameters) {
  ::mkdir((home_ / ".ikigai").c_str(), 0700);
  WriteFile(home_ / ".ikigai/config.json", R"({"reasoning_effort": "high", "max_tokens": 3000})");
  auto run = Ikigai({"--model", openai() ? "o3-mini" : "m", "-p", "os-reasoning"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const json body = Requests().at(0);
  if (openai()) {
    EXPECT_EQ(body["max_completion_tokens"], 3000) << body;
    EXPECT_FALSE(body.contains("max_tokens")) << body;
    EXPECT_EQ(body["reasoning_effort"], "high") << body;
  } else {  // aimock journals Gemini's maxOutputTokens as max_tokens
    EXPECT_EQ(body["max_tokens"], 3000) << body;
    EXPECT_FALSE(body.contains("reasoning_effort")) << body;
  }
}

TEST_P(OneShotTest, ResumeWithoutAnIdNeverTakesAnotherFoldersSession) {
  ::mkdir((home_ / ".ikigai").c_str(), 0700);
  ::mkdir(sessions().c_str(), 0700);
  WriteFile(
      sessions() + "/20250101-000000-bbbbbb.jsonl",
      json{{"type", "session"}, {"id", "20250101-000000-bbbbbb"}, {"cwd", "/elsewhere"}}.dump() +
          "\n" + R"({"type":"message","role":"user","text":"another project"})" + "\n");
  auto run = Ikigai({"--resume", "-p", "os-resume-2 go on"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("no session was started in " + project()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("ikigai --resume ID"), std::string::npos) << run.err;
  EXPECT_TRUE(Requests().empty());
  // Named, it resumes, with a note that it came from elsewhere.
  auto named = Ikigai({"--resume", "20250101-000000-bbbbbb", "-p", "os-resume-2 go on"});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.err.find("was started in /elsewhere"), std::string::npos) << named.err;
}

// Configuration mistakes: exit 2, naming the file and the key, before any
// request.
TEST(OneShotConfigTest, MistakesExitTwoNamingTheFileAndTheKey) {
  TempDir home;
  const std::string project = home / "project";
  ::mkdir(project.c_str(), 0755);
  ::mkdir((project + "/.ikigai").c_str(), 0755);
  ::mkdir((home / ".ikigai").c_str(), 0755);
  const Env env = {{"HOME", home.path()},      {"OPENAI_API_KEY", "k"},
                   {"ANTHROPIC_API_KEY", ""},  {"OPENAI_BASE_URL", "http://127.0.0.1:9/v1"},
                   {"ANTHROPIC_BASE_URL", ""}, {"IKIGAI_PROVIDER", ""},
                   {"IKIGAI_MODEL", ""},       {"IKIGAI_TOOL_TIMEOUT_MS", ""}};
  auto run = [&](const std::vector<std::string>& args) {
    std::vector<std::string> trusted = {"--trust"};
    trusted.insert(trusted.end(), args.begin(), args.end());
    return testing::RunExecutable(kIkigai, "", {.argv_extra = trusted, .env = env, .cwd = project});
  };

  WriteFile(project + "/.ikigai/config.json", R"({"max_rounds": 0})");
  auto bad_value = run({"-p", "hello"});
  EXPECT_EQ(bad_value.exit_code, 2);
  EXPECT_NE(bad_value.err.find(project + "/.ikigai/config.json: max_rounds: "), std::string::npos)
      << bad_value.err;

  WriteFile(project + "/.ikigai/config.json", "{}");
  WriteFile(home / ".ikigai/config.json", R"({"provider": "mistral"})");
  auto bad_provider = run({"-p", "hello"});
  EXPECT_EQ(bad_provider.exit_code, 2);
  EXPECT_NE(bad_provider.err.find(home / ".ikigai/config.json: provider: "), std::string::npos)
      << bad_provider.err;

  WriteFile(home / ".ikigai/config.json", R"({"modle": "x"})");
  auto unknown_key = run({"-p", "hello"});
  EXPECT_EQ(unknown_key.exit_code, 2);
  EXPECT_NE(unknown_key.err.find(home / ".ikigai/config.json: modle: unknown key"),
            std::string::npos)
      << unknown_key.err;

  WriteFile(home / ".ikigai/config.json", "{}");
  auto bad_flag = run({"--provider", "mistral", "-p", "hello"});
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_NE(bad_flag.err.find("--provider mistral: must be openai, anthropic or gemini"),
            std::string::npos)
      << bad_flag.err;

  auto bad_output = run({"--output", "yaml", "-p", "hello"});
  EXPECT_NE(bad_output.exit_code, 0);
  EXPECT_NE(bad_output.err.find("--output"), std::string::npos) << bad_output.err;
}

// Models send "" as the arguments of a call without parameters (aimock
// cannot script that, a loopback server can): the tool gets {}, and the
// JSON output shows {}.
TEST(OneShotJsonTest, EmptyArgumentsAreShownAsTheObjectTheToolGot) {
  providers::testing::LoopbackServer server(
      {providers::testing::EventStreamHead() +
       "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":"
       "\"call_noargs\",\"type\":\"function\",\"function\":{\"name\":\"glob\",\"arguments\":"
       "\"\"}}]}}]}\n\n"
       "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
       "data: [DONE]\n\n"});
  TempDir home;
  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteFile(home / ".ikigai/config.json", R"({"max_rounds": 1})");  // it would ask forever
  const Env env = {{"HOME", home.path()},      {"OPENAI_API_KEY", "k"},
                   {"ANTHROPIC_API_KEY", ""},  {"OPENAI_BASE_URL", server.url()},
                   {"ANTHROPIC_BASE_URL", ""}, {"IKIGAI_PROVIDER", ""},
                   {"IKIGAI_MODEL", ""},       {"IKIGAI_TOOL_TIMEOUT_MS", ""}};
  auto run = testing::RunExecutable(
      kIkigai, "",
      {.argv_extra = {"--provider", "openai", "--output", "json", "-p", "hi"},
       .env = env,
       .cwd = home.path()});
  EXPECT_EQ(run.exit_code, 1) << run.err;  // the round limit
  ASSERT_TRUE(run.json.is_object()) << run.out;
  ASSERT_EQ(run.json["tool_calls"].size(), 1u) << run.json;
  EXPECT_EQ(run.json["tool_calls"][0]["id"], "call_noargs");
  EXPECT_EQ(run.json["tool_calls"][0]["arguments"], json::object()) << run.json;
  // glob ran with {} and said what is missing.
  EXPECT_EQ(run.json["tool_calls"][0]["result"]["tool_success"], true) << run.json;
  EXPECT_EQ(run.json["tool_calls"][0]["result"]["result"]["error_code"], "INVALID_ARG");
  EXPECT_EQ(run.json["round_limit_reached"], true);
}

// Gemini 3 refuses a conversation whose thought signatures were dropped:
// the model turn goes back exactly as it came, in the next round and after
// --resume (from the session log). The real API ends a turn of calls with
// STOP and may give calls no id.
TEST(OneShotGeminiTest, AModelTurnGoesBackVerbatimInTheNextRoundAndAfterResume) {
  const std::string text_answer =
      providers::testing::EventStreamHead() +
      "data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"text\": "
      "\"Done.\"}]}, \"finishReason\": \"STOP\"}]}\n\n";
  providers::testing::LoopbackServer server(std::vector<providers::testing::ScriptedReply>{
      {providers::testing::EventStreamHead() +
       "data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": ["
       "{\"text\": \"Weighing it.\", \"thought\": true},"
       "{\"functionCall\": {\"name\": \"bash\", \"args\": {\"command\": \"echo signed\"}}, "
       "\"thoughtSignature\": \"c2lnbmVk\"}]}, \"finishReason\": \"STOP\"}]}\n\n"},
      {text_answer},
      {text_answer}});
  TempDir home;
  const Env env = {{"HOME", home.path()},
                   {"OPENAI_API_KEY", ""},
                   {"ANTHROPIC_API_KEY", ""},
                   {"GEMINI_API_KEY", "AIza-test"},
                   {"GOOGLE_GEMINI_BASE_URL", server.url()},
                   {"IKIGAI_PROVIDER", ""},
                   {"IKIGAI_MODEL", ""},
                   {"IKIGAI_PERMISSIONS", "auto"}};
  const auto run = [&](std::vector<std::string> args) {
    return testing::RunExecutable(kIkigai, "",
                                  {.argv_extra = args, .env = env, .cwd = home.path()});
  };
  const json model_turn = json::parse(R"({"role": "model", "parts": [
    {"text": "Weighing it.", "thought": true},
    {"functionCall": {"name": "bash", "args": {"command": "echo signed"}},
     "thoughtSignature": "c2lnbmVk"}]})");
  const auto body = [&server] {
    const std::string request = server.last_request();
    return json::parse(request.substr(request.find("\r\n\r\n") + 4), nullptr, false);
  };

  // GEMINI_API_KEY alone chooses the provider.
  auto first = run({"--output", "json", "-p", "go"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.json["text"], "Done.") << first.out;
  EXPECT_EQ(first.json["tool_calls"][0]["id"], "gemini_call_0") << first.out;
  EXPECT_EQ(first.json["tool_calls"][0]["result"]["result"]["output"], "signed") << first.out;
  ASSERT_EQ(server.requests(), 2);
  json sent = body();
  ASSERT_EQ(sent["contents"].size(), 3u) << sent;
  EXPECT_EQ(sent["contents"][1], model_turn);
  // No id went out with the call, so none comes back with its result.
  EXPECT_EQ(sent["contents"][2]["parts"][0]["functionResponse"]["name"], "bash");
  EXPECT_FALSE(sent["contents"][2]["parts"][0]["functionResponse"].contains("id")) << sent;

  auto resumed = run({"--resume", "-p", "more"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(resumed.out, "Done.\n");
  ASSERT_EQ(server.requests(), 3);
  sent = body();
  ASSERT_EQ(sent["contents"].size(), 5u) << sent;
  EXPECT_EQ(sent["contents"][1], model_turn);
  EXPECT_EQ(sent["contents"][3], json::parse(R"({"role": "model", "parts": [{"text": "Done."}]})"));
  EXPECT_EQ(sent["contents"][4], json::parse(R"({"role": "user", "parts": [{"text": "more"}]})"));
}

// Whatever fails, --output json prints one object a caller can parse.
TEST(OneShotJsonTest, EveryFailureIsOneJsonObjectWithTheErrorAndTheSession) {
  TempDir home;
  // A port nobody listens on: bound, then closed.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);
  const std::string unreachable = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  const Env base = {{"HOME", home.path()},      {"ANTHROPIC_API_KEY", ""},
                    {"ANTHROPIC_BASE_URL", ""}, {"IKIGAI_PROVIDER", ""},
                    {"IKIGAI_MODEL", ""},       {"IKIGAI_TOOL_TIMEOUT_MS", ""}};
  const auto run = [&](Env extra, std::vector<std::string> args) {
    Env env = base;
    env.insert(env.end(), extra.begin(), extra.end());
    args.insert(args.begin(), {"--provider", "openai", "--output", "json"});
    return testing::RunExecutable(kIkigai, "",
                                  {.argv_extra = args, .env = env, .cwd = home.path()});
  };

  auto unreached = run({{"OPENAI_API_KEY", "k"}, {"OPENAI_BASE_URL", unreachable}}, {"-p", "hi"});
  EXPECT_EQ(unreached.exit_code, 1);
  ASSERT_TRUE(unreached.json.is_object()) << unreached.out << unreached.err;
  EXPECT_EQ(unreached.json["error_code"], "NETWORK_ERROR") << unreached.json;
  EXPECT_NE(unreached.json["error"].get<std::string>().find("could not connect to"),
            std::string::npos);
  EXPECT_TRUE(unreached.json["session"].is_string()) << "the conversation is kept to resume";

  auto no_key = run({{"OPENAI_API_KEY", ""}, {"OPENAI_BASE_URL", unreachable}}, {"-p", "hi"});
  EXPECT_EQ(no_key.exit_code, 2);
  ASSERT_TRUE(no_key.json.is_object()) << no_key.out;
  EXPECT_EQ(no_key.json["error_code"], "AUTH") << no_key.json;

  auto empty = run({{"OPENAI_API_KEY", "k"}}, {"-p", " "});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.json["error_code"], "INVALID_ARG") << empty.out;

  ::mkdir((home / ".ikigai").c_str(), 0755);
  WriteFile(home / ".ikigai/config.json", R"({"max_rounds": "many"})");
  auto bad_config = run({{"OPENAI_API_KEY", "k"}}, {"-p", "hi"});
  EXPECT_EQ(bad_config.exit_code, 2);
  EXPECT_EQ(bad_config.json["error_code"], "CONFIG_ERROR") << bad_config.out;
  EXPECT_NE(bad_config.json["error"].get<std::string>().find("max_rounds"), std::string::npos);

  auto bad_flag = run({{"OPENAI_API_KEY", "k"}}, {"-p", "hi", "--permissions", "nope"});
  EXPECT_NE(bad_flag.exit_code, 0);
  ASSERT_TRUE(bad_flag.json.is_object()) << bad_flag.out << bad_flag.err;
  EXPECT_EQ(bad_flag.json["error_code"], "USAGE") << bad_flag.out;
  EXPECT_NE(bad_flag.json["error"].get<std::string>().find("permissions"), std::string::npos);
}

TEST(OneShotSummaryTest, OutsideTextInSummariesIsVisibleAndCutAtACharacter) {
  // A name or command with controls cannot rewrite the line it is shown on.
  EXPECT_EQ(session::SummarizeCall({"c", "ba\x1b]0;x\x07sh", R"({"command": "ls"})"}),
            "ba\\x1b]0;x\\x07sh: ls");
  EXPECT_EQ(session::SummarizeResult(protocol::WrappedJson::parse(
                R"({"tool_success": false, "error_code": "X\u001b[2J"})")),
            "X\\x1b[2J");
  // 300 two-byte characters: cut at a character, never inside one.
  std::string wide;
  for (int i = 0; i < 300; ++i) wide += "\xc3\xa9";
  const std::string line = session::SummarizeCall({"c", "bash", json{{"command", wide}}.dump()});
  EXPECT_TRUE(line.ends_with("\xc3\xa9...")) << line;
  EXPECT_LE(line.size(), std::string("bash: ").size() + 100);
  // An approval shows the whole command, every line of it.
  const std::string command = std::string(300, 'a') + "\nrm -rf ~ #\x1b[2K";
  EXPECT_EQ(session::DescribeCallInFull({"c", "bash", json{{"command", command}}.dump()}),
            std::string(300, 'a') + "\nrm -rf ~ #\\x1b[2K");
}

TEST(OneShotSummaryTest, CallsAndResultsAreSummarizedOnOneLine) {
  EXPECT_EQ(session::SummarizeCall({"c", "bash", R"({"command": "ls -la\nwc -l"})"}),
            "bash: ls -la wc -l");
  EXPECT_EQ(session::SummarizeCall({"c", "grep", R"({"pattern": "TODO", "path": "src"})"}),
            "grep: TODO in src");
  EXPECT_EQ(session::SummarizeCall({"c", "x", ""}), "x: ");
  EXPECT_EQ(session::SummarizeCall({"c", "x", "{not json"}), "x: {not json");
  EXPECT_EQ(session::SummarizeCall({"c", "bash", json{{"command", std::string(300, 'a')}}.dump()}),
            "bash: " + std::string(97, 'a') + "...");
  using protocol::WrappedJson;
  EXPECT_EQ(session::SummarizeResult(WrappedJson::parse(R"({"tool_success": true, "result": {}})")),
            "ok");
  EXPECT_EQ(session::SummarizeResult(
                WrappedJson::parse(R"({"tool_success": true, "result": {"exit_code": 2}})")),
            "exit 2");
  EXPECT_EQ(session::SummarizeResult(WrappedJson::parse(
                R"({"tool_success": true, "result": {"error_code": "FILE_NOT_FOUND"}})")),
            "FILE_NOT_FOUND");
  EXPECT_EQ(session::SummarizeResult(WrappedJson::parse(
                R"({"tool_success": true, "result": {"output": "", "truncated": true}})")),
            "ok, truncated");
  EXPECT_EQ(session::SummarizeResult(
                WrappedJson::parse(R"({"tool_success": false, "error_code": "TOOL_TIMEOUT"})")),
            "TOOL_TIMEOUT");
  EXPECT_EQ(
      session::SummarizeResult(WrappedJson::parse(
          R"({"tool_success": true, "result": {}, "protected_paths_changed": ["/w/.git/config"]})")),
      "ok; WARNING: changed protected paths: /w/.git/config");
}

}  // namespace
}  // namespace ikigai::oneshot
