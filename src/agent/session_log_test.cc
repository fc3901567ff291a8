// Session logs: ~/.ikigai/sessions/<id>.jsonl, written as the session goes,
// read back by --resume.
#include "agent/session_log.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "providers/testing/loopback_server.h"
#include "testing/tool_runner.h"

namespace ikigai::agent {
namespace {

using nlohmann::json;
using providers::Message;
using providers::Role;
using testing::ReadFile;
using testing::TempDir;

std::vector<Message> Conversation() {
  return {
      {Role::kUser, "list the files\nplease", {}, {}},
      {Role::kAssistant,
       "Looking.",
       {{"call_1", "bash", R"({"command":"ls"})"}, {"call_2", "glob", ""}},
       {}},
      {Role::kToolResults,
       "",
       {},
       {{"call_1", "bash", R"({"tool_success":true,"result":{"output":"a\nb","exit_code":0}})"},
        {"call_2", "glob", R"({"tool_success":false,"error":"x","error_code":"TOOL_CRASHED"})"}}},
      {Role::kAssistant, "Two files: a and b. \xC3\xA9", {}, {}},
  };
}

void ExpectSameMessages(const std::vector<Message>& got, const std::vector<Message>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("message " + std::to_string(i));
    EXPECT_EQ(got[i].role, want[i].role);
    EXPECT_EQ(got[i].text, want[i].text);
    ASSERT_EQ(got[i].tool_calls.size(), want[i].tool_calls.size());
    for (std::size_t k = 0; k < want[i].tool_calls.size(); ++k) {
      EXPECT_EQ(got[i].tool_calls[k].id, want[i].tool_calls[k].id);
      EXPECT_EQ(got[i].tool_calls[k].name, want[i].tool_calls[k].name);
      EXPECT_EQ(got[i].tool_calls[k].arguments, want[i].tool_calls[k].arguments);
    }
    ASSERT_EQ(got[i].tool_results.size(), want[i].tool_results.size());
    for (std::size_t k = 0; k < want[i].tool_results.size(); ++k) {
      EXPECT_EQ(got[i].tool_results[k].call_id, want[i].tool_results[k].call_id);
      EXPECT_EQ(got[i].tool_results[k].name, want[i].tool_results[k].name);
      EXPECT_EQ(got[i].tool_results[k].content, want[i].tool_results[k].content);
    }
  }
}

std::unique_ptr<SessionLog> NewLog(const std::string& dir) {
  auto log = SessionLog::Create(dir, {{"provider", "openai"}, {"model", "gpt-test"}});
  EXPECT_TRUE(log) << log.error();
  return log ? std::move(*log) : nullptr;
}

TEST(SessionLogTest, MessagesRoundTripThroughTheFile) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto log = NewLog(dir);
  ASSERT_NE(log, nullptr);
  for (const Message& message : Conversation()) log->AppendMessage(message);
  log->Append({{"type", "usage"}, {"input_tokens", 5}, {"output_tokens", 2}});

  EXPECT_EQ(log->path(), dir + "/" + log->id() + ".jsonl");
  struct stat st {};
  ASSERT_EQ(::stat(log->path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "a session may hold private code";

  // One JSON object per line: the start, the four messages, the usage.
  std::ifstream in(log->path());
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0]["type"], "session");
  EXPECT_EQ(lines[0]["id"], log->id());
  EXPECT_EQ(lines[0]["model"], "gpt-test");
  EXPECT_TRUE(lines[0]["time"].is_number_integer());
  EXPECT_EQ(lines[2]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(lines[3]["results"][1]["call_id"], "call_2");
  EXPECT_EQ(lines[5]["type"], "usage");

  auto loaded = LoadSession(dir, log->id());
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->id, log->id());
  EXPECT_EQ(loaded->path, log->path());
  ExpectSameMessages(loaded->messages, Conversation());
}

TEST(SessionLogTest, ReopenAppendsToTheSameFile) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto log = NewLog(dir);
  ASSERT_NE(log, nullptr);
  log->AppendMessage(Conversation()[0]);
  const std::string id = log->id(), path = log->path();
  log.reset();
  auto reopened = SessionLog::Reopen(path, id);
  ASSERT_TRUE(reopened) << reopened.error();
  (*reopened)->AppendMessage(Conversation()[3]);
  auto loaded = LoadSession(dir, id);
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->messages.size(), 2u);
  EXPECT_EQ(loaded->messages[1].text, Conversation()[3].text);
}

TEST(SessionLogTest, WithoutAnIdTheNewestSessionIsLoaded) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto older = NewLog(dir);
  auto newer = NewLog(dir);
  ASSERT_NE(older, nullptr);
  ASSERT_NE(newer, nullptr);
  ASSERT_NE(older->id(), newer->id());
  older->AppendMessage({Role::kUser, "older", {}, {}});
  newer->AppendMessage({Role::kUser, "newer", {}, {}});
  const auto now = std::filesystem::file_time_type::clock::now();
  std::filesystem::last_write_time(older->path(), now - std::chrono::seconds(100));
  std::filesystem::last_write_time(newer->path(), now - std::chrono::seconds(50));
  testing::WriteFile(dir + "/notes.txt", "not a session");  // ignored

  auto loaded = LoadSession(dir, "");
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->id, newer->id());
  ASSERT_EQ(loaded->messages.size(), 1u);
  EXPECT_EQ(loaded->messages[0].text, "newer");

  // Continuing the older one makes it the newest.
  std::filesystem::last_write_time(older->path(), now);
  loaded = LoadSession(dir, "");
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->id, older->id());
}

TEST(SessionLogTest, ALastLineCutByACrashIsIgnored) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto log = NewLog(dir);
  ASSERT_NE(log, nullptr);
  for (const Message& message : Conversation()) log->AppendMessage(message);
  const std::string path = log->path(), id = log->id();
  log.reset();
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"type":"message","role":"user","text":"cut sh)";  // no end, no newline
  }
  auto loaded = LoadSession(dir, id);
  ASSERT_TRUE(loaded) << loaded.error();
  ExpectSameMessages(loaded->messages, Conversation());
}

TEST(SessionLogTest, CallsLeftWithoutResultsAreAnsweredCancelled) {
  // The session ended while tools ran, twice: in the middle (then resumed
  // with a new prompt) and at the end.
  TempDir home;
  const std::string dir = home / "sessions";
  auto log = NewLog(dir);
  ASSERT_NE(log, nullptr);
  log->AppendMessage({Role::kUser, "build", {}, {}});
  log->AppendMessage(
      {Role::kAssistant, "", {{"call_a", "bash", "{}"}, {"call_b", "grep", ""}}, {}});
  log->AppendMessage({Role::kUser, "go on", {}, {}});
  log->AppendMessage({Role::kAssistant, "Again.", {{"call_c", "bash", "{}"}}, {}});
  auto loaded = LoadSession(dir, log->id());
  ASSERT_TRUE(loaded) << loaded.error();
  const auto& messages = loaded->messages;
  ASSERT_EQ(messages.size(), 6u);
  EXPECT_EQ(messages[2].role, Role::kToolResults);
  ASSERT_EQ(messages[2].tool_results.size(), 2u);
  EXPECT_EQ(messages[2].tool_results[0].call_id, "call_a");
  EXPECT_EQ(messages[2].tool_results[1].call_id, "call_b");
  EXPECT_EQ(messages[2].tool_results[1].name, "grep");
  const json wrapped = json::parse(messages[2].tool_results[0].content);
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "CANCELLED");
  EXPECT_EQ(messages[3].text, "go on");
  EXPECT_EQ(messages[5].role, Role::kToolResults);
  ASSERT_EQ(messages[5].tool_results.size(), 1u);
  EXPECT_EQ(messages[5].tool_results[0].call_id, "call_c");
  // A complete conversation is left as it is.
  ExpectSameMessages(
      [&] {
        auto other = NewLog(dir);
        for (const Message& message : Conversation()) other->AppendMessage(message);
        auto again = LoadSession(dir, other->id());
        return again ? again->messages : std::vector<Message>{};
      }(),
      Conversation());
}

TEST(SessionLogTest, AnUnknownIdIsAnErrorNamingIt) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto none = LoadSession(dir, "");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), "no saved session in " + dir);

  auto log = NewLog(dir);
  ASSERT_NE(log, nullptr);
  auto missing = LoadSession(dir, "20990101-000000-abcdef");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("20990101-000000-abcdef"), std::string::npos) << missing.error();
  EXPECT_NE(missing.error().find(dir), std::string::npos) << missing.error();
}

TEST(SessionLogTest, ALineThatCannotBeReadIsSkippedAndReportedAndTheRestLoads) {
  TempDir home;
  const std::string dir = home / "sessions";
  ::mkdir(dir.c_str(), 0700);
  testing::WriteFile(dir + "/bad.jsonl",
                     "{\"type\":\"session\",\"id\":\"bad\"}\n"
                     "{\"type\":\"message\",\"role\":\"user\",\"text\":\"one\"}\n"
                     "{\"type\":\"message\",\"role\":\"wizard\",\"text\":\"x\"}\n"
                     "garbage in the middle\n"
                     "{\"type\":\"message\",\"role\":\"assistant\",\"text\":\"two\"}\n");
  auto loaded = LoadSession(dir, "bad");
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->messages.size(), 2u);
  EXPECT_EQ(loaded->messages[1].text, "two");
  EXPECT_EQ(loaded->skipped,
            (std::vector<std::string>{dir + "/bad.jsonl:3: unknown role 'wizard'",
                                      dir + "/bad.jsonl:4: not JSON (cut by a crash?)"}));
}

TEST(SessionLogTest, FieldsOfTheWrongTypeAreSkippedNeverThrown) {
  TempDir home;
  const std::string dir = home / "sessions";
  ::mkdir(dir.c_str(), 0700);
  const std::vector<std::string> wrong = {
      R"({"type":"message","role":"user","text":5})",
      R"({"type":"message","role":7,"text":"x"})",
      R"({"type":"message","role":"assistant","tool_calls":{"id":"c"}})",
      R"({"type":"message","role":"assistant","tool_calls":[3]})",
      R"({"type":"message","role":"assistant","tool_calls":[{"id":1,"name":"bash"}]})",
      R"({"type":"message","role":"tool_results","results":[{"call_id":"c","content":{}}]})",
      R"({"type":5})",
      R"([1,2,3])",
      R"("text")",
  };
  std::string text = "{\"type\":\"session\",\"id\":\"w\"}\n";
  for (const std::string& line : wrong) text += line + "\n";
  text += "{\"type\":\"message\",\"role\":\"user\",\"text\":\"kept\"}\n";
  testing::WriteFile(dir + "/w.jsonl", text);
  auto loaded = LoadSession(dir, "w");
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->messages.size(), 1u);
  EXPECT_EQ(loaded->messages[0].text, "kept");
  EXPECT_EQ(loaded->skipped.size(), wrong.size());
  EXPECT_NE(loaded->skipped[0].find("w.jsonl:2: 'text' is not a string"), std::string::npos)
      << loaded->skipped[0];
}

// Found by fuzz/session_log_fuzz.cc: a user line with "results" loaded as a
// user message holding tool results (conversation.h: tool results belong
// to kToolResults only, tool calls to kAssistant only), which a write and
// a read dropped. Each role reads its own fields only.
TEST(SessionLogTest, FieldsOfAnotherRoleAreNotRead) {
  const json call = {{"id", "c1"}, {"name", "bash"}, {"arguments", "{}"}};
  const json result = {{"call_id", "c1"}, {"name", "bash"}, {"content", "{}"}};
  for (const char* role : {"user", "assistant", "tool_results"}) {
    SCOPED_TRACE(role);
    const json line = {{"type", "message"},
                       {"role", role},
                       {"text", "hello"},
                       {"tool_calls", json::array({call})},
                       {"results", json::array({result})}};
    auto message = MessageFromJson(line);
    ASSERT_TRUE(message) << message.error();
    EXPECT_EQ(message->text, message->role == Role::kToolResults ? "" : "hello");
    EXPECT_EQ(message->tool_calls.size(), message->role == Role::kAssistant ? 1u : 0u);
    EXPECT_EQ(message->tool_results.size(), message->role == Role::kToolResults ? 1u : 0u);
    auto again = MessageFromJson(MessageToJson(*message));
    ASSERT_TRUE(again) << again.error();
    ExpectSameMessages({*again}, {*message});
  }
}

// Every line of a real log, mutated byte by byte (seeded, so repeatable):
// loading never throws and never crashes.
TEST(SessionLogTest, MutatedLogsNeverThrow) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto log = NewLog(dir);
  ASSERT_NE(log, nullptr);
  for (const Message& message : Conversation()) log->AppendMessage(message);
  const std::string original = ReadFile(log->path());
  log.reset();
  std::mt19937 random(12345);
  const std::string alphabet = "{}[]\":,0123456789.-truefalsnul \\abc";
  for (int round = 0; round < 2000; ++round) {
    std::string text = original;
    for (int k = 0; k < 3; ++k) {
      const std::size_t at = random() % text.size();
      text[at] = alphabet[random() % alphabet.size()];
    }
    testing::WriteFile(dir + "/m.jsonl", text);
    EXPECT_NO_THROW({
      auto loaded = LoadSession(dir, "m");
      EXPECT_TRUE(loaded);
    }) << text;
  }
}

TEST(SessionLogTest, ReopeningCutsATornLastLineSoTheNextLineStandsAlone) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto log = NewLog(dir);
  ASSERT_NE(log, nullptr);
  log->AppendMessage({Role::kUser, "before the crash", {}, {}});
  const std::string path = log->path(), id = log->id();
  log.reset();
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"type":"message","role":"assistant","text":"cut sh)";  // torn by a crash
  }
  auto reopened = SessionLog::Reopen(path, id);
  ASSERT_TRUE(reopened) << reopened.error();
  EXPECT_NE((*reopened)->repair_note().find("bytes were dropped"), std::string::npos)
      << (*reopened)->repair_note();
  (*reopened)->AppendMessage({Role::kUser, "after the crash", {}, {}});
  (*reopened)->AppendMessage({Role::kAssistant, "still here", {}, {}});
  reopened->reset();
  auto loaded = LoadSession(dir, id);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_TRUE(loaded->skipped.empty()) << loaded->skipped[0];
  ASSERT_EQ(loaded->messages.size(), 3u);
  EXPECT_EQ(loaded->messages[1].text, "after the crash");
  EXPECT_EQ(loaded->messages[2].text, "still here");
  // A whole log is left as it is.
  auto again = SessionLog::Reopen(path, id);
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->repair_note(), "");
}

TEST(SessionLogTest, TwoWritersAtOnceInterleaveOnlyAtLineEnds) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto first = NewLog(dir);
  ASSERT_NE(first, nullptr);
  auto second = SessionLog::Reopen(first->path(), first->id());
  ASSERT_TRUE(second);
  const std::string big(100000, 'x');  // more than any stdio buffer
  std::thread a([&] {
    for (int i = 0; i < 50; ++i) first->AppendMessage({Role::kUser, "a" + big, {}, {}});
  });
  std::thread b([&] {
    for (int i = 0; i < 50; ++i) (*second)->AppendMessage({Role::kUser, "b" + big, {}, {}});
  });
  a.join();
  b.join();
  auto loaded = LoadSession(dir, first->id());
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_TRUE(loaded->skipped.empty()) << loaded->skipped[0];
  EXPECT_EQ(loaded->messages.size(), 100u);
}

TEST(SessionLogTest, ResumeWithoutAnIdTakesTheNewestSessionStartedHere) {
  TempDir home;
  const std::string dir = home / "sessions";
  auto here = SessionLog::Create(dir, {{"cwd", "/work/here"}});
  ASSERT_TRUE(here);
  (*here)->AppendMessage({Role::kUser, "here", {}, {}});
  auto elsewhere = SessionLog::Create(dir, {{"cwd", "/work/elsewhere"}});
  ASSERT_TRUE(elsewhere);
  (*elsewhere)->AppendMessage({Role::kUser, "elsewhere", {}, {}});
  // Make "elsewhere" clearly the newest.
  std::filesystem::last_write_time(
      (*here)->path(),
      std::filesystem::last_write_time((*elsewhere)->path()) - std::chrono::hours(1));
  auto loaded = LoadSession(dir, "", std::string("/work/here"));
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->id, (*here)->id());
  EXPECT_EQ(loaded->cwd, "/work/here");
  auto none = LoadSession(dir, "", std::string("/work/third"));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().find("no session was started in /work/third"), std::string::npos);
  EXPECT_NE(none.error().find("ikigai --resume ID"), std::string::npos) << none.error();
  // Named, any directory's session resumes.
  auto named = LoadSession(dir, (*elsewhere)->id(), std::string("/work/here"));
  ASSERT_TRUE(named) << named.error();
  EXPECT_EQ(named->cwd, "/work/elsewhere");
}

// A real one-shot session through the binary, with distinctive keys: they
// reach the server and never the session file.
testing::ToolRun OneShot(const TempDir& home,
                         const std::vector<std::pair<std::string, std::string>>& env,
                         const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, std::string>> all = {
      {"HOME", home.path()},   {"OPENAI_API_KEY", ""},     {"ANTHROPIC_API_KEY", ""},
      {"OPENAI_BASE_URL", ""}, {"ANTHROPIC_BASE_URL", ""}, {"IKIGAI_PROVIDER", ""},
      {"IKIGAI_MODEL", ""},    {"NO_PROXY", "127.0.0.1"},
  };
  all.insert(all.end(), env.begin(), env.end());
  return testing::RunExecutable(
      IKIGAI_BIN, "",
      {.argv_extra = args, .env = all, .cwd = home.path(), .timeout = std::chrono::seconds(30)});
}

std::string SessionFiles(const std::string& dir) {
  std::string all;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    all += ReadFile(entry.path().string());
  }
  return all;
}

TEST(SessionLogTest, ApiKeysNeverReachTheSessionFile) {
  using providers::testing::EventStreamHead;
  using providers::testing::LoopbackServer;
  const std::string openai_key = "sk-canary-OPENAI-7f3a9c1e5b";
  const std::string anthropic_key = "sk-ant-canary-ANTHROPIC-2d8e4f6a0c";

  LoopbackServer openai({EventStreamHead() +
                         "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi.\"}}]}\n\n"
                         "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
                         "\"stop\"}]}\n\ndata: [DONE]\n\n"});
  LoopbackServer anthropic(
      {EventStreamHead() +
       "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
       "{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
       "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
       "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
       "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
       "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi.\"}}\n\n"
       "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
       "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
       "\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n"
       "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"});

  TempDir home;
  auto from_env = OneShot(home, {{"OPENAI_API_KEY", openai_key}, {"OPENAI_BASE_URL", openai.url()}},
                          {"--provider", "openai", "-p", "say hi"});
  EXPECT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_EQ(from_env.out, "Hi.\n");
  EXPECT_NE(openai.last_request().find("Bearer " + openai_key), std::string::npos)
      << "the key was not sent";

  // A key from the configuration file, and the other provider.
  ::mkdir((home / ".ikigai").c_str(), 0700);
  testing::WriteFile(
      home / ".ikigai/config.json",
      json{{"anthropic", {{"api_key", anthropic_key}, {"base_url", anthropic.url()}}}}.dump());
  auto from_file = OneShot(home, {}, {"--provider", "anthropic", "-p", "hello"});
  EXPECT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(from_file.out, "Hi.\n");
  EXPECT_NE(anthropic.last_request().find("x-api-key: " + anthropic_key), std::string::npos)
      << anthropic.last_request();

  const std::string dir = home / ".ikigai/sessions";
  ASSERT_EQ(testing::ListDir(dir).size(), 2u);
  const std::string logs = SessionFiles(dir);
  EXPECT_NE(logs.find("\"text\":\"Hi.\""), std::string::npos) << logs;
  EXPECT_NE(logs.find("\"text\":\"say hi\""), std::string::npos) << logs;
  EXPECT_EQ(logs.find(openai_key), std::string::npos) << logs;
  EXPECT_EQ(logs.find(anthropic_key), std::string::npos) << logs;
  EXPECT_EQ(logs.find("canary"), std::string::npos) << logs;
}

}  // namespace
}  // namespace ikigai::agent
