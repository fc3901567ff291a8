// Modes and rules (DECISIONS §6): every row of the table, deny beating
// allow in every mode, rule syntax, prefixes, globs and domains.
#include "permissions/policy.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/tool_runner.h"

namespace ikigai::permissions {
namespace {

using nlohmann::json;

class PolicyTest : public ::testing::Test {
 protected:
  Place place() const { return {workspace_, workspace_}; }
  Verdict Of(const CallFacts& call, Mode mode, const Rules& rules = {}) const {
    return Decide(call, mode, rules, place()).verdict;
  }
  Rules Parse(std::vector<std::string> allow, std::vector<std::string> deny = {}) const {
    auto rules = ParseRules(allow, deny);
    EXPECT_TRUE(rules.ok()) << rules.error();
    return rules.ok() ? *rules : Rules{};
  }
  testing::TempDir dir_;
  std::string workspace_ = std::filesystem::canonical(dir_.path()).string();
};

CallFacts Bash(const std::string& command) {
  return {"bash", {{"command", command}}, false, false};
}
CallFacts Edit(const std::string& path) {
  return {
      "file_edit", {{"file_path", path}, {"old_string", "a"}, {"new_string", "b"}}, false, false};
}

TEST_F(PolicyTest, EveryRowOfTheTable) {
  const CallFacts read{"file_read", {{"file_path", "a.c"}}, true, false};
  const CallFacts read_bash = Bash("git status");
  const CallFacts edit_inside = Edit("src/a.c");
  const CallFacts edit_outside = Edit("/etc/hosts");
  const CallFacts command = Bash("npm test");
  const CallFacts web{"web_fetch", {{"url", "https://example.com/"}}, false, true};
  struct Row {
    Mode mode;
    Verdict read, edit_inside, edit_outside, other;
  };
  const Verdict A = Verdict::kAllow, Q = Verdict::kAsk, D = Verdict::kDeny;
  for (const Row& row : {Row{Mode::kReadOnly, A, D, D, D}, Row{Mode::kAsk, A, Q, Q, Q},
                         Row{Mode::kAutoEdit, A, A, Q, Q}, Row{Mode::kAuto, A, A, A, A},
                         Row{Mode::kUnrestricted, A, A, A, A}}) {
    SCOPED_TRACE(std::string(ModeName(row.mode)));
    EXPECT_EQ(Of(read, row.mode), row.read);
    EXPECT_EQ(Of(read_bash, row.mode), row.read);
    EXPECT_EQ(Of(edit_inside, row.mode), row.edit_inside);
    EXPECT_EQ(Of(edit_outside, row.mode), row.edit_outside);
    EXPECT_EQ(Of(command, row.mode), row.other);
    EXPECT_EQ(Of(web, row.mode), row.other);
  }
  // A read-only tool that reaches the outside world (web_search) still asks
  // in ask mode; elsewhere it counts as read-only.
  const CallFacts search{"web_search", {{"query", "x"}}, true, true};
  EXPECT_EQ(Of(search, Mode::kAsk), Verdict::kAsk);
  EXPECT_EQ(Of(search, Mode::kAutoEdit), Verdict::kAllow);
  EXPECT_EQ(Of(search, Mode::kReadOnly), Verdict::kAllow);
}

TEST_F(PolicyTest, DenyBeatsAllowInEveryModeUnrestrictedIncluded) {
  const Rules rules = Parse({"bash", "bash(git push:*)"}, {"bash(git push:*)"});
  for (Mode mode :
       {Mode::kReadOnly, Mode::kAsk, Mode::kAutoEdit, Mode::kAuto, Mode::kUnrestricted}) {
    const Decision decision = Decide(Bash("git push origin main"), mode, rules, place());
    EXPECT_EQ(decision.verdict, Verdict::kDeny) << ModeName(mode);
    EXPECT_NE(decision.reason.find("permissions.deny"), std::string::npos) << decision.reason;
  }
  // A deny rule on a read-only command wins too.
  EXPECT_EQ(Of(Bash("cat secrets.txt"), Mode::kAsk, Parse({}, {"bash(cat secrets.txt)"})),
            Verdict::kDeny);
}

TEST_F(PolicyTest, AllowRulesTurnAskIntoRunButNeverWidenReadOnly) {
  const Rules rules = Parse({"bash(npm test:*)", "file_edit(src/**)"});
  EXPECT_EQ(Of(Bash("npm test -- --watch=false"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Edit("src/deep/a.c"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Edit("docs/a.md"), Mode::kAsk, rules), Verdict::kAsk);
  EXPECT_EQ(Of(Bash("npm test"), Mode::kReadOnly, rules), Verdict::kDeny);
}

TEST_F(PolicyTest, BashPrefixesStopAtWordsAndCoverEveryCommand) {
  const Rules rules = Parse({"bash(git push:*)", "bash(make)"});
  EXPECT_EQ(Of(Bash("git push"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Bash("git push --force origin x"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Bash("git pushx"), Mode::kAsk, rules), Verdict::kAsk);
  EXPECT_EQ(Of(Bash("git push; rm -rf x"), Mode::kAsk, rules), Verdict::kAsk);
  EXPECT_EQ(Of(Bash("make"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Bash("make install"), Mode::kAsk, rules), Verdict::kAsk) << "exact without :*";
  EXPECT_EQ(Of(Bash("make > /etc/x"), Mode::kAsk, rules), Verdict::kAsk);
  EXPECT_EQ(Of(Bash("make && git push"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Bash("echo $(rm x)"), Mode::kAsk, Parse({"bash(echo:*)"})), Verdict::kAsk);
  // Deny matches any command of the line.
  EXPECT_EQ(Of(Bash("ls; git push"), Mode::kAuto, Parse({}, {"bash(git push:*)"})), Verdict::kDeny);
}

// An allow rule covers only what the parser can see: a substitution
// anywhere (inside double quotes, backquotes, an unquoted here-document)
// runs a command no rule was checked against, so the call asks.
TEST_F(PolicyTest, AllowRulesDoNotCoverCommandsHiddenInSubstitutions) {
  const Rules rules = Parse({"bash(git status:*)", "bash(cat)", "bash(echo:*)"});
  for (const char* command :
       {"git status \"$(touch PWNED)\"", "git status \"`touch PWNED`\"", "git status `touch PWNED`",
        "git status <(touch PWNED)", "echo \"it's $(touch PWNED)\"",
        "cat <<EOF\n$(touch PWNED)\nEOF", "cat <<EOF\n'`touch PWNED`'\nEOF", "echo $((1 << 2))"}) {
    EXPECT_EQ(Of(Bash(command), Mode::kAsk, rules), Verdict::kAsk) << command;
    EXPECT_EQ(Of(Bash(command), Mode::kAutoEdit, rules), Verdict::kAsk) << command;
  }
  // What the shell does not expand is still covered.
  EXPECT_EQ(Of(Bash("git status '$(touch x)'"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Bash("cat <<'EOF'\n$(touch x)\nEOF"), Mode::kAsk, rules), Verdict::kAllow);
  // The exact line of a rule, once it holds a substitution, asks too.
  const std::string line = "git status && echo \"$(touch PWNED)\"";
  EXPECT_EQ(Of(Bash(line), Mode::kAsk, Parse({"bash(" + line + ")"})), Verdict::kAsk);
}

// Deny rules see through substitutions (quoted or not, here-documents,
// process substitutions), nested shells and eval, and command wrappers, in
// every mode.
TEST_F(PolicyTest, DenyRulesSeeThroughSubstitutionsShellsAndWrappers) {
  const Rules rules = Parse({"bash"}, {"bash(rm:*)", "bash(git push:*)"});
  for (const char* command : {"echo \"$(rm -f victim)\"",
                              "echo \"`rm -f victim`\"",
                              "echo $(rm -f victim)",
                              "echo \"it's $(rm -f victim)\"",
                              "cat <<EOF\n$(rm -f victim)\nEOF",
                              "cat <(rm -f victim)",
                              "echo \"$(echo \"$(rm -f victim)\")\"",
                              "sh -c 'rm -f victim'",
                              "bash -ec \"cd /tmp && rm -f victim\"",
                              "echo \"$(sh -c 'rm -f victim')\"",
                              "eval 'rm -f victim'",
                              "timeout 5 rm -f victim",
                              "env A=1 rm -f victim",
                              "nice -n 5 rm -f victim",
                              "nohup rm -f victim &",
                              "xargs rm -f < list",
                              "command rm -f victim",
                              "exec rm -f victim",
                              "time rm -f victim",
                              "sudo -u root rm -f victim",
                              "/bin/rm -f victim",
                              "\\rm -f victim",
                              "r''m -f victim",
                              "/bin/r? -f victim",
                              "{rm,-f,victim}",
                              "x=rm; $x -f victim",
                              "$'\\x72m' -f victim",
                              "find . -name x -exec rm {} +",
                              "if true; then rm -f victim; fi",
                              "echo \"$(echo \"'\")\" ; rm -f victim",
                              "sh <<'EOF'\nrm -f victim\nEOF",
                              "echo rm -f victim | sh",
                              "git -C . push",
                              "git --no-pager push origin",
                              "x=$(date) && sh -c \"$x; rm -f victim\""}) {
    for (Mode mode : {Mode::kAsk, Mode::kAuto, Mode::kUnrestricted}) {
      EXPECT_EQ(Of(Bash(command), mode, rules), Verdict::kDeny)
          << command << " in " << ModeName(mode);
    }
  }
  // Words that only look like the command are not it.
  for (const char* command : {"echo rm -f victim", "ls -la", "git status", "grep -r 'rm' .",
                              "git commit -m 'rm: drop the old script'"}) {
    EXPECT_EQ(Of(Bash(command), Mode::kAuto, rules), Verdict::kAllow) << command;
  }
}

TEST_F(PolicyTest, PathGlobsAreRelativeToTheWorkspace) {
  std::filesystem::create_directories(workspace_ + "/src");
  std::filesystem::create_symlink("/etc", workspace_ + "/src/out");
  const Rules rules = Parse({"file_edit(src/**)", "file_write(*.md)"});
  EXPECT_EQ(Of(Edit(workspace_ + "/src/a.c"), Mode::kAsk, rules), Verdict::kAllow);  // absolute
  EXPECT_EQ(Of(Edit("src/../src/a.c"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(Edit("src/../../x/a.c"), Mode::kAsk, rules), Verdict::kAsk);
  EXPECT_EQ(Of(Edit("src/out/hosts"), Mode::kAsk, rules), Verdict::kAsk) << "through a link out";
  EXPECT_EQ(Of(Edit("src/out/hosts"), Mode::kAutoEdit), Verdict::kAsk) << "not in the workspace";
  const CallFacts write{"file_write", {{"file_path", "NOTES.md"}, {"content", "x"}}, false, false};
  EXPECT_EQ(Of(write, Mode::kAsk, rules), Verdict::kAllow);
}

TEST_F(PolicyTest, DomainRulesMatchTheHostAndItsSubdomains) {
  const Rules rules = Parse({"web_fetch(domain:example.com)"});
  const auto fetch = [](const std::string& url) {
    return CallFacts{"web_fetch", {{"url", url}}, false, true};
  };
  EXPECT_EQ(Of(fetch("https://example.com/a"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(fetch("https://docs.example.com:8443/a"), Mode::kAsk, rules), Verdict::kAllow);
  EXPECT_EQ(Of(fetch("https://evilexample.com/"), Mode::kAsk, rules), Verdict::kAsk);
  EXPECT_EQ(Of(fetch("https://example.com.evil.net/"), Mode::kAsk, rules), Verdict::kAsk);
  EXPECT_EQ(Of(fetch("https://user@example.com@evil.net/"), Mode::kAsk, rules), Verdict::kAsk);
}

TEST_F(PolicyTest, RuleSyntaxErrorsNameTheRule) {
  EXPECT_EQ(ParseRule("bash(git").error(), "bash(git: missing closing parenthesis");
  EXPECT_NE(ParseRule("").error().find("a rule is TOOL or TOOL(SPEC)"), std::string::npos);
  EXPECT_NE(ParseRule("bash()").error().find("empty parentheses"), std::string::npos);
  auto rules = ParseRules({"grep"}, {"b a d"});
  ASSERT_FALSE(rules.ok());
  EXPECT_TRUE(rules.error().starts_with("permissions.deny: b a d:")) << rules.error();
}

TEST_F(PolicyTest, TheAnswersSayWhatWouldAllowTheCall) {
  const Decision ask = Decide(Bash("npm test"), Mode::kAsk, {}, place());
  EXPECT_EQ(ask.verdict, Verdict::kAsk);
  EXPECT_NE(ask.how_to_allow.find("--permissions auto"), std::string::npos);
  EXPECT_NE(ask.how_to_allow.find("\"bash(npm test:*)\" in permissions.allow"), std::string::npos);
  const Decision edit = Decide(Edit("a.c"), Mode::kAsk, {}, place());
  EXPECT_NE(edit.how_to_allow.find("--permissions auto-edit"), std::string::npos)
      << edit.how_to_allow;
  const Decision read_only = Decide(Bash("rm x"), Mode::kReadOnly, {}, place());
  EXPECT_EQ(read_only.verdict, Verdict::kDeny);
  EXPECT_NE(read_only.reason.find("read-only"), std::string::npos);
}

TEST_F(PolicyTest, AlwaysRules) {
  EXPECT_EQ(RuleToAllow(Bash("npm test -- -x"), place()), "bash(npm test:*)");
  EXPECT_EQ(RuleToAllow(Bash("git commit -m 'x'"), place()), "bash(git commit:*)");
  EXPECT_EQ(RuleToAllow(Bash("ls -la"), place()), "bash(ls:*)");
  EXPECT_EQ(RuleToAllow(Bash("make && rm x"), place()), "bash(make && rm x)");
  EXPECT_EQ(RuleToAllow(Edit("src/a.c"), place()), "file_edit(src/a.c)");
  // The rule it proposes allows the same call again.
  for (const CallFacts& call : {Bash("npm test -- -x"), Bash("make && rm x"), Edit("src/a.c")}) {
    EXPECT_EQ(Of(call, Mode::kAsk, Parse({RuleToAllow(call, place())})), Verdict::kAllow);
  }
}

// A prefix rule for a program that runs another command (a wrapper, a
// shell, an interpreter given code) would allow any command: "always" keeps
// the exact command instead.
TEST_F(PolicyTest, AlwaysRulesForWrappersAndInterpretersAreExact) {
  for (const char* command : {"timeout 60 npm test",
                              "sh -c 'npm test'",
                              "bash -c 'make'",
                              "env FOO=1 make",
                              "FOO=1 make",
                              "nice -n 5 make",
                              "nohup ./server",
                              "xargs rm",
                              "sudo apt install x",
                              "exec make",
                              "eval make",
                              "command make",
                              "time make",
                              "stdbuf -oL make",
                              "python3 -c 'print(1)'",
                              "node -e 'x()'",
                              "perl -e 'x'",
                              "ruby -e 'x'",
                              "find . -exec rm {} +",
                              "git -C /elsewhere push",
                              "$CMD run",
                              "! make"}) {
    const std::string rule = RuleToAllow(Bash(command), place());
    EXPECT_EQ(rule, "bash(" + std::string(command) + ")") << command;
    EXPECT_EQ(Of(Bash(command), Mode::kAsk, Parse({rule})), Verdict::kAllow) << command;
    EXPECT_EQ(Of(Bash(std::string(command) + " && rm -rf x"), Mode::kAsk, Parse({rule})),
              Verdict::kAsk)
        << command;
  }
  EXPECT_EQ(RuleToAllow(Bash("python3 manage.py test"), place()), "bash(python3 manage.py:*)");
}

// Where no rule could allow the call again without allowing more, there is
// no "always": a substitution (allow rules never cover it) and a path
// outside the workspace (path rules are relative to it).
TEST_F(PolicyTest, NoAlwaysRuleWhereNoRuleFitsTheCall) {
  EXPECT_EQ(RuleToAllow(Edit("/etc/hosts"), place()), "");
  EXPECT_EQ(RuleToAllow(Edit("../elsewhere/a.c"), place()), "");
  EXPECT_EQ(RuleToAllow(Bash("echo \"$(date)\""), place()), "");
  EXPECT_EQ(RuleToAllow(Bash("cat <<EOF\n`date`\nEOF"), place()), "");
  EXPECT_EQ(RuleToAllow(Bash("echo a:*"), place()), "") << "would read as a prefix rule";
  const Decision ask = Decide(Edit("/etc/hosts"), Mode::kAsk, {}, place());
  EXPECT_EQ(ask.verdict, Verdict::kAsk);
  EXPECT_EQ(ask.how_to_allow.find("permissions.allow"), std::string::npos) << ask.how_to_allow;
  // A path with glob characters is kept literally: the rule covers that file only.
  const std::string rule = RuleToAllow(Edit("src/[ab]*.c"), place());
  EXPECT_EQ(rule, "file_edit(src/\\[ab\\]\\*.c)");
  EXPECT_EQ(Of(Edit("src/[ab]*.c"), Mode::kAsk, Parse({rule})), Verdict::kAllow);
  EXPECT_EQ(Of(Edit("src/a.c"), Mode::kAsk, Parse({rule})), Verdict::kAsk);
}

TEST(ModeTest, NamesRoundTrip) {
  for (const char* name : {"read-only", "ask", "auto-edit", "auto", "unrestricted"}) {
    ASSERT_TRUE(ParseMode(name).has_value()) << name;
    EXPECT_EQ(ModeName(*ParseMode(name)), name);
    EXPECT_FALSE(ModeDescription(*ParseMode(name)).empty());
  }
  EXPECT_FALSE(ParseMode("yolo").has_value());
}

}  // namespace
}  // namespace ikigai::permissions
