// Skills end to end: the real `ikigai -p` against aimock. What the model is
// shown (the system prompt's section, the tools of each request), what the
// skill tool returns, and the skill's own tool called once it is loaded.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "providers/testing/aimock_server.h"
#include "session/project_store.h"
#include "session/trust.h"
#include "testing/tool_runner.h"

namespace ikigai::skills {
namespace {

using nlohmann::json;
using providers::testing::AimockServer;
using providers::testing::SuiteAimock;
using testing::TempDir;
using testing::ToolRun;
using testing::WriteFile;
using Env = std::vector<std::pair<std::string, std::string>>;
using namespace std::chrono_literals;

const std::string kIkigai = IKIGAI_BIN;

constexpr const char* kFixtures = R"({"fixtures": [
  {"match": {"toolCallId": "call_greet"}, "response": {"content": "greeted"}},
  {"match": {"toolCallId": "call_load"}, "response": {"toolCalls": [{"id": "call_greet",
    "name": "greet", "arguments": {"who": "Ada"}}]}},
  {"match": {"userMessage": "skills-progressive"}, "response": {"toolCalls": [{"id": "call_load",
    "name": "skill", "arguments": {"name": "greeter"}}]}},
  {"match": {"userMessage": "skills-hello"}, "response": {"content": "hello"}}
]})";

class SkillsOneShotTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_.Start(kFixtures); }
  static void TearDownTestSuite() { suite_.Stop(); }
  void SetUp() override {
    auto server = suite_.Reset(kFixtures);
    ASSERT_TRUE(server) << server.error();
    aimock_ = *server;
    ::mkdir(project().c_str(), 0755);
  }

  std::string home() const { return home_.path(); }
  std::string project() const { return home_ / "project"; }
  void Trust() const {
    ASSERT_TRUE(session::ProjectStore(home_ / ".ikigai/projects.json").SetTrusted(project(), true));
  }

  // A skill in `root` (made if needed); `tool`: a *-tool in its tools/ that
  // answers with its arguments.
  static void MakeSkill(const std::string& root, const std::string& name,
                        const std::string& description, const std::string& body,
                        const std::string& tool = "") {
    std::filesystem::create_directories(root + "/" + name);
    WriteFile(root + "/" + name + "/SKILL.md", "---\nname: " + name + "\ndescription: " +
                                                   description + "\nlicense: MIT\n---\n" + body);
    if (tool.empty()) return;
    std::filesystem::create_directories(root + "/" + name + "/tools");
    WriteFile(root + "/" + name + "/tools/" + tool + "-tool",
              "#!/bin/sh\nif [ \"$1\" = --schema ]; then echo '{\"name\": \"" + tool +
                  "\", \"description\": \"Greets.\", \"parameters\": {\"type\": \"object\", "
                  "\"properties\": {\"who\": {\"type\": \"string\"}}, \"required\": "
                  "[\"who\"]}, \"annotations\": {\"readOnlyHint\": true}}'; exit 0; fi\n"
                  "read -r input; echo \"{\\\"greeting\\\": \\\"hi from the skill\\\", "
                  "\\\"input\\\": $input}\"\n",
              0755);
  }

  Env Environment() const {
    return {{"HOME", home()},
            {"XDG_CACHE_HOME", home_ / "cache"},
            {"OPENAI_API_KEY", AimockServer::kApiKey},
            {"OPENAI_BASE_URL", aimock_->openai_base_url()},
            {"ANTHROPIC_API_KEY", ""},
            {"GEMINI_API_KEY", ""},
            {"IKIGAI_PROVIDER", ""},
            {"IKIGAI_MODEL", ""},
            {"IKIGAI_SUBAGENT", ""},
            {"IKIGAI_PERMISSIONS", "auto"}};
  }
  ToolRun Run(const std::string& prompt) const {
    return testing::RunExecutable(kIkigai, "",
                                  {.argv_extra = {"--provider", "openai", "--model", "gpt-4.1",
                                                  "-p", prompt, "--output", "json"},
                                   .env = Environment(),
                                   .cwd = project(),
                                   .timeout = 120s});
  }
  std::vector<json> Requests() const {
    auto journal = aimock_->Journal();
    EXPECT_TRUE(journal) << journal.error();
    std::vector<json> bodies;
    if (journal) {
      for (const json& entry : *journal) bodies.push_back(entry["body"]);
    }
    return bodies;
  }
  static std::string SystemPrompt(const json& body) {
    for (const json& message : body["messages"]) {
      if (message["role"] == "system") return message["content"];
    }
    return "";
  }
  static std::vector<std::string> ToolNames(const json& body) {
    std::vector<std::string> names;
    for (const json& tool : body["tools"]) names.push_back(tool["function"]["name"]);
    return names;
  }
  static bool Has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  }

  static inline AimockServer* aimock_ = nullptr;
  static inline SuiteAimock suite_;
  TempDir home_;
};

TEST_F(SkillsOneShotTest, TheBodyAndTheSkillsToolsReachTheModelOnlyOnceLoaded) {
  MakeSkill(home() + "/.ikigai/skills", "greeter", "Greets people by name.",
            "# Greeter\nBODY-MARKER-7731: greet with the greet tool; style in notes.md.\n",
            "greet");
  const ToolRun run = Run("skills-progressive");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_EQ(run.json["text"], "greeted") << run.out;
  const std::vector<json> requests = Requests();
  ASSERT_EQ(requests.size(), 3u);

  // First request: the name and description, the skill tool; no body, no greet.
  const std::string first = requests[0].dump();
  EXPECT_NE(SystemPrompt(requests[0]).find("- greeter: Greets people by name."), std::string::npos)
      << SystemPrompt(requests[0]);
  EXPECT_EQ(first.find("BODY-MARKER-7731"), std::string::npos);
  EXPECT_TRUE(Has(ToolNames(requests[0]), "skill"));
  EXPECT_FALSE(Has(ToolNames(requests[0]), "greet"));

  // After the skill tool: its result holds the body and the folder; greet is offered.
  const std::string second = requests[1].dump();
  EXPECT_NE(second.find("BODY-MARKER-7731"), std::string::npos);
  EXPECT_TRUE(Has(ToolNames(requests[1]), "greet"));
  const json& load = run.json["tool_calls"][0];
  EXPECT_EQ(load["name"], "skill");
  EXPECT_EQ(load["result"]["tool_success"], true) << load;
  EXPECT_EQ(load["result"]["result"]["path"], home() + "/.ikigai/skills/greeter");
  EXPECT_EQ(load["result"]["result"]["tools"], json({"greet"}));

  // And greet ran as a tool of its own.
  const json& greet = run.json["tool_calls"][1];
  EXPECT_EQ(greet["name"], "greet");
  EXPECT_EQ(greet["result"]["tool_success"], true) << greet;
  EXPECT_EQ(greet["result"]["result"]["greeting"], "hi from the skill") << greet;
  EXPECT_EQ(greet["result"]["result"]["input"]["who"], "Ada") << greet;
}

TEST_F(SkillsOneShotTest, AllPlacesWithPrecedenceAndProjectSkillsOnlyWhenTrusted) {
  MakeSkill(home() + "/.ikigai/skills", "shared", "USER-SHARED description.", "user body\n");
  MakeSkill(home() + "/.agents/skills", "from-agents", "AGENTS-DIR description.", "b\n");
  MakeSkill(project() + "/.ikigai/skills", "shared", "PROJECT-SHARED description.", "b\n");
  MakeSkill(project() + "/.agents/skills", "project-agents", "PROJECT-AGENTS description.", "b\n");

  // Untrusted: the project's skills are not read.
  ToolRun run = Run("skills-hello");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  std::string prompt = SystemPrompt(Requests().back());
  EXPECT_NE(prompt.find("- shared: USER-SHARED description."), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("- from-agents: AGENTS-DIR description."), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("PROJECT-"), std::string::npos) << prompt;
  // The folder's skills count for the trust question.
  EXPECT_EQ(session::InspectProject(project()).skills, 2);

  Trust();
  run = Run("skills-hello");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  prompt = SystemPrompt(Requests().back());
  EXPECT_NE(prompt.find("- shared: PROJECT-SHARED description."), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("USER-SHARED"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("- project-agents: PROJECT-AGENTS description."), std::string::npos);
  EXPECT_NE(prompt.find("- from-agents: AGENTS-DIR description."), std::string::npos) << prompt;
}

TEST_F(SkillsOneShotTest, ABrokenSkillIsReportedAndLeftOut) {
  MakeSkill(home() + "/.ikigai/skills", "fine", "A fine skill.", "b\n");
  std::filesystem::create_directories(home() + "/.ikigai/skills/broken");
  WriteFile(home() + "/.ikigai/skills/broken/SKILL.md", "# no front matter\n");
  MakeSkill(home() + "/.ikigai/skills", "misnamed", "d", "b\n");
  WriteFile(home() + "/.ikigai/skills/misnamed/SKILL.md",
            "---\nname: other\ndescription: d\n---\n");
  const ToolRun run = Run("skills-hello");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_NE(run.err.find("ikigai: warning: skill 'broken' left out (~/.ikigai/skills/broken/"
                         "SKILL.md): no front matter"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("skill 'misnamed' left out"), std::string::npos) << run.err;
  const std::string prompt = SystemPrompt(Requests().back());
  EXPECT_NE(prompt.find("- fine: A fine skill."), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("broken"), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("misnamed"), std::string::npos) << prompt;
}

TEST_F(SkillsOneShotTest, SkillsPastTheBudgetAreNamedInAWarning) {
  // 2% of a 40,000-token window is 3,200 bytes: about six of these fit.
  std::filesystem::create_directories(home() + "/.ikigai");
  WriteFile(home() + "/.ikigai/config.json", R"({"context_window": 40000})");
  for (int i = 0; i < 12; ++i) {
    MakeSkill(home() + "/.ikigai/skills", "skill-" + std::to_string(10 + i),
              "Description " + std::string(400, 'x') + ".", "b\n");
  }
  const ToolRun run = Run("skills-hello");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_NE(run.err.find("skill(s) left out of the system prompt"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("skill-21"), std::string::npos) << run.err;
  const std::string prompt = SystemPrompt(Requests().back());
  EXPECT_NE(prompt.find("- skill-10: "), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("- skill-21: "), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("more skills are not listed here"), std::string::npos) << prompt;
}

TEST_F(SkillsOneShotTest, WithoutSkillsThereIsNoSkillToolAndNoSection) {
  const ToolRun run = Run("skills-hello");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const json request = Requests().back();
  EXPECT_FALSE(Has(ToolNames(request), "skill"));
  EXPECT_EQ(SystemPrompt(request).find("# Skills"), std::string::npos);
}

}  // namespace
}  // namespace ikigai::skills
