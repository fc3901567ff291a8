// Discovery against real directories and real tool processes: each test
// writes small #!/bin/sh tools into temporary directories.
#include "discovery/discovery.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "testing/tool_runner.h"

namespace ikigai::discovery {
namespace {

using registry::DiscoveryFailure;
using registry::Registry;
using registry::Source;
using testing::TempDir;
using testing::WriteFile;

std::string Schema(const std::string& name, const std::string& description = "A test tool.") {
  return R"({"name": ")" + name + R"(", "description": ")" + description +
         R"(", "parameters": {"type": "object", "properties": {}, "required": []}})";
}

// A tool that prints `output` as its schema.
void WriteTool(const std::string& path, const std::string& output, int mode = 0755) {
  WriteFile(path, "#!/bin/sh\ncat <<'EOF'\n" + output + "\nEOF\n", mode);
}

void WriteScript(const std::string& path, const std::string& body) {
  WriteFile(path, "#!/bin/sh\n" + body + "\n", 0755);
}

class DiscoveryTest : public ::testing::Test {
 protected:
  DiscoveryTest() {
    for (const char* sub : {"system", "user", "project"}) ::mkdir((root_ / sub).c_str(), 0755);
  }
  Directories Dirs() const { return {root_ / "system", root_ / "user", root_ / "project"}; }
  std::string In(const std::string& layer, const std::string& file) const {
    return root_ / (layer + "/" + file);
  }

  // Where no tool is slow on purpose, a timeout that a loaded machine (or a
  // sanitizer build) cannot reach.
  static DiscoveryOptions Patient() { return {.schema_timeout = std::chrono::milliseconds(5000)}; }

  TempDir root_;
};

const DiscoveryFailure* FailureFor(const Registry& registry, const std::string& name) {
  for (const DiscoveryFailure& failure : registry.failures()) {
    if (failure.name == name) return &failure;
  }
  return nullptr;
}

std::vector<std::string> Names(const Registry& registry) {
  std::vector<std::string> names;
  for (const auto& tool : registry.tools()) names.push_back(tool.name);
  return names;
}

TEST(DiscoveryToolNameTest, FromFileName) {
  EXPECT_EQ(ToolNameFromFile("bash-tool"), "bash");
  EXPECT_EQ(ToolNameFromFile("file-read-tool"), "file_read");
  EXPECT_EQ(ToolNameFromFile("word_count-tool"), "word_count");
  EXPECT_EQ(ToolNameFromFile("a--b-tool"), "a__b");
  EXPECT_EQ(ToolNameFromFile("tool-tool"), "tool");
  EXPECT_EQ(ToolNameFromFile("-tool"), "");
  EXPECT_EQ(ToolNameFromFile("tool"), "");
  EXPECT_EQ(ToolNameFromFile("bash"), "");
  EXPECT_EQ(ToolNameFromFile("bash_tool"), "");
  EXPECT_EQ(ToolNameFromFile("bash-tool.sh"), "");
  EXPECT_EQ(ToolNameFromFile(""), "");
}

TEST(DiscoveryDirectoriesTest, DefaultsAreSystemUserProject) {
  const Directories dirs = DefaultDirectories();
  // The test binary is in build/tests; the build tree has build/libexec/ikigai.
  EXPECT_TRUE(dirs.system.ends_with("/libexec/ikigai")) << dirs.system;
  EXPECT_EQ(dirs.system.find(".."), std::string::npos) << dirs.system;
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    EXPECT_EQ(dirs.user, std::string(home) + "/.ikigai/tools");
  }
  EXPECT_EQ(dirs.project, std::filesystem::current_path().string() + "/.ikigai/tools");
}

TEST_F(DiscoveryTest, GoodToolLoads) {
  WriteTool(In("system", "word-count-tool"),
            R"({"name": "word_count", "description": "Count words.",
                "parameters": {"path": {"type": "string", "required": true}},
                "annotations": {"readOnlyHint": true}})");
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.failures().empty());
  ASSERT_EQ(registry.tools().size(), 1u);
  const registry::Tool& tool = registry.tools()[0];
  EXPECT_EQ(tool.name, "word_count");
  EXPECT_EQ(tool.path, In("system", "word-count-tool"));
  EXPECT_EQ(tool.source, Source::kSystem);
  EXPECT_EQ(tool.schema.description, "Count words.");
  EXPECT_EQ(tool.schema.parameters["required"], nlohmann::json::parse(R"(["path"])"));
  EXPECT_EQ(tool.schema.annotations["readOnlyHint"], true);
  EXPECT_TRUE(tool.warnings.empty());
  EXPECT_EQ(registry.Find("word_count"), &tool);
}

TEST_F(DiscoveryTest, RegistryIsSortedByName) {
  for (const char* name : {"zeta", "alpha", "mid"}) {
    WriteTool(In("system", std::string(name) + "-tool"), Schema(name));
  }
  WriteTool(In("user", "beta-tool"), Schema("beta"));
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_EQ(Names(registry), (std::vector<std::string>{"alpha", "beta", "mid", "zeta"}));
}

TEST_F(DiscoveryTest, FailuresAreLeftOutWithTheirReasons) {
  WriteTool(In("system", "good-tool"), Schema("good"));
  WriteScript(In("system", "crash-tool"), "kill -SEGV $$");
  WriteScript(In("system", "exit-three-tool"), "echo 'cannot find libfoo' >&2\nexit 3");
  WriteScript(In("system", "garbage-tool"), "echo 'Usage: garbage [--help]'");
  WriteScript(In("system", "silent-tool"), "exit 0");
  WriteTool(In("system", "no-description-tool"), R"({"name": "no_description", "parameters": {}})");
  WriteTool(In("system", "bad-required-tool"),
            R"({"name": "bad_required", "description": "d",
                "parameters": {"type": "object", "properties": {}, "required": "x"}})");
  // 9 KB of schema: the description alone is past the 8 KB limit.
  WriteTool(In("system", "huge-tool"), Schema("huge", std::string(9 * 1024, 'x')));
  WriteScript(In("system", "not-script-tool"), "");
  WriteFile(In("system", "no-shebang-tool"),
            "\x7f"
            "ELF garbage",
            0755);

  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_EQ(Names(registry), (std::vector<std::string>{"good"}));
  auto reason = [&](const std::string& name) {
    const DiscoveryFailure* failure = FailureFor(registry, name);
    return failure == nullptr ? std::string("(not reported)") : failure->reason;
  };
  EXPECT_EQ(reason("crash"), "killed by signal 11");
  EXPECT_EQ(reason("exit_three"), "exit code 3");
  EXPECT_EQ(FailureFor(registry, "exit_three")->detail, "cannot find libfoo");
  EXPECT_EQ(FailureFor(registry, "exit_three")->path, In("system", "exit-three-tool"));
  EXPECT_TRUE(reason("garbage").starts_with("invalid JSON: parse error at line 1, column 1"))
      << reason("garbage");
  EXPECT_EQ(reason("silent"), "invalid JSON: nothing was printed");
  EXPECT_EQ(reason("not_script"), "invalid JSON: nothing was printed");
  EXPECT_EQ(reason("no_description"), "invalid schema: missing \"description\"");
  EXPECT_EQ(reason("bad_required"),
            "invalid schema: parameters.required must be an array of property names");
  EXPECT_EQ(reason("huge"), "schema larger than 8 KB");
  EXPECT_TRUE(reason("no_shebang").starts_with("cannot start: ")) << reason("no_shebang");
  EXPECT_EQ(registry.failures().size(), 9u);
}

TEST_F(DiscoveryTest, SchemaOfExactlyTheLimitLoads) {
  const std::string base = Schema("edge", "");
  // cat prints the heredoc with its newline: 8192 bytes in all.
  const std::string schema = Schema("edge", std::string(8 * 1024 - base.size() - 1, 'x'));
  ASSERT_EQ(schema.size() + 1, 8192u);
  WriteTool(In("system", "edge-tool"), schema);
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.failures().empty()) << registry.failures()[0].reason;
  EXPECT_NE(registry.Find("edge"), nullptr);
}

TEST_F(DiscoveryTest, ToolsThatNeverAnswerTimeOutTogether) {
  // Three tools that never answer --schema: they run at once (within the
  // four at a time that the smallest machine gets), and once more together
  // with thrice the time, so the scan takes about 1 + 3 s, not three times
  // that, let alone their 10 s sleep.
  for (int i = 0; i < 3; ++i)
    WriteScript(In("system", "slow" + std::to_string(i) + "-tool"), "sleep 10");
  WriteTool(In("user", "quick-tool"), Schema("quick"));
  const auto start = std::chrono::steady_clock::now();
  const Registry registry = Discover(Dirs());  // the default 1 s
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 3.95);
  EXPECT_LT(seconds, 9.0);  // one after another would take 12 s
  EXPECT_EQ(Names(registry), (std::vector<std::string>{"quick"}));
  ASSERT_EQ(registry.failures().size(), 3u);
  for (const DiscoveryFailure& failure : registry.failures()) {
    EXPECT_EQ(failure.reason, "timeout") << failure.name;
  }
}

TEST_F(DiscoveryTest, AToolSlowedByABusyMachineIsAskedAgainWithMoreTime) {
  // Answers only on its second start, and then after 1.5 s: more than the
  // 1 s deadline of the first round, within the 3 s of the second.
  WriteScript(In("user", "late-tool"), "if [ -e \"$0.started\" ]; then sleep 1.5; cat <<'EOF'\n" +
                                           Schema("late") +
                                           "\nEOF\nelse : > \"$0.started\"; sleep 10; fi");
  const Registry registry = Discover(Dirs());
  EXPECT_TRUE(registry.failures().empty()) << registry.failures()[0].reason;
  EXPECT_NE(registry.Find("late"), nullptr);
}

TEST_F(DiscoveryTest, NamesNoProviderAcceptsAreReportedAndNeverAsked) {
  const std::string long_name(65, 'x');
  for (const std::string& name :
       {std::string("bad.name"), std::string("caf\xc3\xa9"), std::string("sp ace"), long_name}) {
    WriteScript(In("project", name + "-tool"), ": > \"$0.asked\"; exit 1");
  }
  WriteTool(In("project", std::string(64, 'y') + "-tool"), Schema(std::string(64, 'y')));
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_EQ(Names(registry), (std::vector<std::string>{std::string(64, 'y')}));
  ASSERT_EQ(registry.failures().size(), 4u);
  for (const DiscoveryFailure& failure : registry.failures()) {
    EXPECT_NE(failure.reason.find("invalid tool name"), std::string::npos) << failure.reason;
    EXPECT_FALSE(std::filesystem::exists(failure.path + ".asked")) << failure.path;
  }
}

TEST_F(DiscoveryTest, UserOverridesSystem) {
  WriteTool(In("system", "bash-tool"), Schema("bash", "system bash"));
  WriteTool(In("system", "grep-tool"), Schema("grep", "system grep"));
  WriteTool(In("user", "bash-tool"), Schema("bash", "user bash"));
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.failures().empty());
  ASSERT_EQ(Names(registry), (std::vector<std::string>{"bash", "grep"}));
  const registry::Tool* bash = registry.Find("bash");
  EXPECT_EQ(bash->schema.description, "user bash");
  EXPECT_EQ(bash->path, In("user", "bash-tool"));
  EXPECT_EQ(bash->source, Source::kUser);
  EXPECT_EQ(registry.Find("grep")->source, Source::kSystem);
}

TEST_F(DiscoveryTest, ProjectOverridesUser) {
  WriteTool(In("system", "bash-tool"), Schema("bash", "system bash"));
  WriteTool(In("user", "bash-tool"), Schema("bash", "user bash"));
  WriteTool(In("project", "bash-tool"), Schema("bash", "project bash"));
  // Only the winner is asked: a loser that would fail is never run.
  WriteScript(In("user", "glob-tool"), "exit 9");
  WriteTool(In("project", "glob-tool"), Schema("glob", "project glob"));
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.failures().empty());
  const registry::Tool* bash = registry.Find("bash");
  ASSERT_NE(bash, nullptr);
  EXPECT_EQ(bash->schema.description, "project bash");
  EXPECT_EQ(bash->path, In("project", "bash-tool"));
  EXPECT_EQ(bash->source, Source::kProject);
  EXPECT_EQ(registry.Find("glob")->source, Source::kProject);
}

TEST_F(DiscoveryTest, NonExecutableFileIsReportedAndSkipped) {
  WriteTool(In("system", "fmt-tool"), Schema("fmt", "system fmt"));
  WriteTool(In("user", "fmt-tool"), Schema("fmt", "user fmt"), 0644);
  const Registry registry = Discover(Dirs(), Patient());
  // The user's file is not a tool, so the system one stays.
  ASSERT_NE(registry.Find("fmt"), nullptr);
  EXPECT_EQ(registry.Find("fmt")->schema.description, "system fmt");
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].name, "fmt");
  EXPECT_EQ(registry.failures()[0].path, In("user", "fmt-tool"));
  EXPECT_EQ(registry.failures()[0].reason, "not executable");
}

TEST_F(DiscoveryTest, FilesWithoutTheSuffixAreIgnored) {
  WriteTool(In("system", "helper"), Schema("helper"));
  WriteTool(In("system", "lint-tool.sh"), Schema("lint"));
  WriteTool(In("system", "-tool"), Schema("empty"));
  WriteTool(In("system", ".hidden-tool"), Schema("hidden"));
  WriteFile(In("system", "README"), "not a tool\n", 0644);
  WriteTool(In("system", "real-tool"), Schema("real"));
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_EQ(Names(registry), (std::vector<std::string>{"real"}));
  EXPECT_TRUE(registry.failures().empty());
}

TEST_F(DiscoveryTest, DirectoryNamedLikeAToolIsReported) {
  ::mkdir(In("system", "folder-tool").c_str(), 0755);
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.tools().empty());
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].reason, "not a regular file");
}

TEST_F(DiscoveryTest, TwoFilesWithOneNameInOneDirectory) {
  WriteTool(In("user", "a-b-tool"), Schema("a_b", "hyphen"));
  WriteTool(In("user", "a_b-tool"), Schema("a_b", "underscore"));
  const Registry registry = Discover(Dirs(), Patient());
  ASSERT_NE(registry.Find("a_b"), nullptr);
  EXPECT_EQ(registry.Find("a_b")->path, In("user", "a-b-tool"));
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].path, In("user", "a_b-tool"));
  EXPECT_EQ(registry.failures()[0].reason, "same name as a-b-tool in this directory");
}

TEST_F(DiscoveryTest, MissingDirectoriesAreFine) {
  WriteTool(In("system", "only-tool"), Schema("only"));
  const Directories dirs{In("system", ""), root_ / "no/such/user", root_ / "no-project"};
  const Registry registry = Discover(dirs, Patient());
  EXPECT_EQ(Names(registry), (std::vector<std::string>{"only"}));
  EXPECT_TRUE(registry.failures().empty());
  EXPECT_EQ(registry.Find("only")->path, In("system", "only-tool"));  // no "//"

  const Registry none = Discover({"", "", ""}, Patient());
  EXPECT_TRUE(none.tools().empty());
  EXPECT_TRUE(none.failures().empty());
}

TEST_F(DiscoveryTest, FileWhereADirectoryShouldBe) {
  WriteFile(root_ / "file", "x");
  const Registry registry = Discover({root_ / "file", "", ""}, Patient());
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].name, "");
  EXPECT_EQ(registry.failures()[0].reason, "cannot read directory: not a directory");
}

// Runs Discover in a child process as nobody (the suite runs as root, who
// reads every directory) and brings back one line per tool and failure.
std::string DiscoverAsNobody(const Directories& dirs) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(testing::kNobody) != 0 ||
                             ::setuid(testing::kNobody) != 0)) {
      ::_exit(2);
    }
    const Registry registry = Discover(dirs);
    std::ostringstream out;
    for (const auto& tool : registry.tools()) out << "tool " << tool.name << "\n";
    for (const auto& f : registry.failures()) {
      out << "failure " << f.name << "|" << f.path << "|" << f.reason << "\n";
    }
    const std::string text = out.str();
    const bool written =
        ::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::_exit(written ? 0 : 3);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return "child failed with status " + std::to_string(status);
  }
  return text;
}

TEST_F(DiscoveryTest, UnreadableDirectoryIsReportedAndTheRestLoads) {
  WriteTool(In("system", "open-tool"), Schema("open"));
  WriteTool(In("user", "secret-tool"), Schema("secret"));
  ASSERT_EQ(::chmod((root_ / "user").c_str(), 0), 0);
  const std::string result = DiscoverAsNobody(Dirs());
  ::chmod((root_ / "user").c_str(), 0755);  // so that TempDir can remove it
  EXPECT_EQ(result, "tool open\nfailure |" + root_ / "user" +
                        "|cannot read directory: Permission denied\n");
}

TEST_F(DiscoveryTest, BrokenSymlinkIsReportedAndSkipped) {
  ASSERT_EQ(::symlink((root_ / "nowhere-tool").c_str(), In("project", "ghost-tool").c_str()), 0);
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.tools().empty());
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].name, "ghost");
  EXPECT_EQ(registry.failures()[0].path, In("project", "ghost-tool"));
  EXPECT_EQ(registry.failures()[0].reason, "broken symbolic link");
}

TEST_F(DiscoveryTest, SymlinkToAToolCounts) {
  ::mkdir((root_ / "elsewhere").c_str(), 0755);
  WriteTool(root_ / "elsewhere/impl", Schema("linked"));
  ASSERT_EQ(::symlink((root_ / "elsewhere/impl").c_str(), In("user", "linked-tool").c_str()), 0);
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.failures().empty());
  ASSERT_NE(registry.Find("linked"), nullptr);
  EXPECT_EQ(registry.Find("linked")->path, In("user", "linked-tool"));
}

TEST_F(DiscoveryTest, SchemaNameDisagreeingWithTheFileIsAWarning) {
  WriteTool(In("system", "alpha-tool"), Schema("beta"));
  const Registry registry = Discover(Dirs(), Patient());
  EXPECT_TRUE(registry.failures().empty());
  EXPECT_EQ(registry.Find("beta"), nullptr);
  const registry::Tool* tool = registry.Find("alpha");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->schema.name, "beta");
  EXPECT_EQ(tool->warnings,
            (std::vector<std::string>{
                "schema name 'beta' differs from file name; registered as 'alpha'"}));
}

TEST_F(DiscoveryTest, SameDirectoryTwiceIsScannedOnce) {
  WriteTool(In("user", "dup-tool"), Schema("dup"));
  WriteTool(In("user", "off-tool"), Schema("off"), 0644);
  const Directories dirs{"", In("user", ""), root_ / "system/../user"};
  const Registry registry = Discover(dirs, Patient());
  ASSERT_NE(registry.Find("dup"), nullptr);
  EXPECT_EQ(registry.Find("dup")->source, Source::kUser);
  EXPECT_EQ(registry.failures().size(), 1u);  // "not executable", once
}

TEST_F(DiscoveryTest, RefreshSeesANewTool) {
  WriteTool(In("system", "first-tool"), Schema("first"));
  registry::RegistryHolder holder;
  holder.Set(std::make_shared<Registry>(Discover(Dirs(), Patient())));
  const auto before = holder.Get();
  EXPECT_EQ(Names(*before), (std::vector<std::string>{"first"}));

  WriteTool(In("project", "second-tool"), Schema("second"));
  holder.Set(std::make_shared<Registry>(Discover(Dirs(), Patient())));
  EXPECT_EQ(Names(*holder.Get()), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(Names(*before), (std::vector<std::string>{"first"}));  // a snapshot in use is kept
}

// Never more --schema processes at once than asked for: each tool notes
// when it starts and ends, and at no moment are more running.
TEST_F(DiscoveryTest, NoMoreSchemasAtOnceThanTheMachineCanRun) {
  const std::string log = root_ / "log";
  for (int i = 0; i < 9; ++i) {
    WriteScript(In("project", "t" + std::to_string(i) + "-tool"),
                "echo \"$(date +%s%N) 1\" >> " + log +
                    "; sleep 0.2; echo \"$(date +%s%N) -1\" >> " + log + "\ncat <<'EOF'\n" +
                    Schema("t" + std::to_string(i)) + "\nEOF");
  }
  DiscoveryOptions options = Patient();
  options.max_concurrent = 3;
  const Registry registry = Discover(Dirs(), options);
  EXPECT_EQ(registry.tools().size(), 9u);
  std::vector<std::pair<long long, int>> events;
  std::istringstream in(testing::ReadFile(log));
  long long when = 0;
  int change = 0;
  while (in >> when >> change) events.emplace_back(when, change);
  ASSERT_EQ(events.size(), 18u);
  std::sort(events.begin(), events.end());
  int running = 0, most = 0;
  for (const auto& [at, delta] : events) most = std::max(most, running += delta);
  EXPECT_LE(most, 3);
}

// The review's case: forty Python tools, each needing 0.4 s of CPU to
// answer --schema, on a two-core machine. Started all at once, each waited
// for a CPU and most missed their second; with a few at a time, and a
// second chance for any that still missed, every one loads.
TEST_F(DiscoveryTest, FortySlowPythonToolsAllLoad) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  for (int i = 0; i < 40; ++i) {
    const std::string name = "slow" + std::to_string(i);
    WriteFile(In("project", name + "-tool"),
              "#!/usr/bin/python3\nimport time\nstart = time.process_time()\n"
              "while time.process_time() - start < 0.4:\n    pass\nprint('" +
                  Schema(name) + "')\n",
              0755);
  }
  const Registry registry = Discover(Dirs());  // the defaults: 1 s each
  EXPECT_EQ(registry.tools().size(), 40u);
  for (const DiscoveryFailure& failure : registry.failures()) {
    ADD_FAILURE() << failure.name << ": " << failure.reason;
  }
}

}  // namespace
}  // namespace ikigai::discovery
