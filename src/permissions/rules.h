// Permission rules (DECISIONS §6): `TOOL` or `TOOL(SPEC)`, in
// permissions.allow and permissions.deny.
//
// bash: SPEC is a command; `git push:*` is that prefix followed by anything
// (at a word boundary), without `:*` the exact command. A rule is checked
// against each simple command of the line (shell_words), so "allow git:*"
// never allows "git status; rm -rf x". An allow rule with a SPEC never
// covers a line with a substitution ($(...), `...`, <(...), arithmetic),
// even in double quotes or a here-document: what that runs is not in the
// words it was checked against. A deny rule looks at every command the line
// can run (reachable_commands.h): inside substitutions and `sh -c`, past
// wrappers such as timeout or sudo; where the line runs what it does not
// show, the rule's words anywhere in it refuse it.
//
// Tools with a path (`file_path` or `path` argument): SPEC is a glob on the
// path relative to the workspace (`src/**`, `*.md`). Web tools:
// `domain:HOST`, the url's host or a subdomain of it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace ikigai::permissions {

struct Rule {
  std::string tool;
  std::optional<std::string> spec;
  std::string text;  // as written
};

// Errors name the problem: "bash(git: missing closing parenthesis".
Result<Rule, std::string> ParseRule(std::string_view text);

struct Rules {
  std::vector<Rule> allow;
  std::vector<Rule> deny;
};

// Parses both lists; the first bad rule is an error naming its list.
Result<Rules, std::string> ParseRules(const std::vector<std::string>& allow,
                                      const std::vector<std::string>& deny);

// Where paths in arguments are resolved and globs are rooted.
struct Place {
  std::string workspace;  // absolute
  std::string cwd;        // absolute
};

enum class Match { kEvery, kAny };

// Whether `rule` covers the call. For bash with kEvery the rule must cover
// every simple command (allow); with kAny one is enough (deny).
bool RuleMatches(const Rule& rule, std::string_view tool, const nlohmann::json& arguments,
                 const Place& place, Match how);

// Whether the allow rules cover the call: one rule covering it all, or, for
// bash, every simple command covered by one of the rules.
bool AllowedByRules(const std::vector<Rule>& allow, std::string_view tool,
                    const nlohmann::json& arguments, const Place& place);

// The call's path argument resolved (relative to cwd, lexically normalized,
// symbolic links of its existing part resolved); empty if it has none.
std::string ResolvedPath(const nlohmann::json& arguments, const std::string& cwd);

// `path` relative to `root`, or nullopt if it is not inside it.
std::optional<std::string> RelativeInside(const std::string& path, const std::string& root);

}  // namespace ikigai::permissions
