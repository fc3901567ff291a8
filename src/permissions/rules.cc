#include "permissions/rules.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

#include "base/format.h"
#include "base/shell_words.h"
#include "permissions/reachable_commands.h"
#include "search/glob_pattern.h"

namespace ikigai::permissions {
namespace {

std::string StringArgument(const nlohmann::json& arguments, const char* name) {
  if (!arguments.is_object()) return "";
  auto it = arguments.find(name);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : "";
}

// The words of a bash rule's SPEC, and whether it is a prefix (`git push:*`).
struct CommandPattern {
  bool prefix = false;
  std::optional<shell::SimpleCommand> command;  // nullopt: not one simple command
};

CommandPattern PatternOf(const std::string& spec) {
  CommandPattern pattern;
  pattern.prefix = spec.ends_with(":*");
  auto commands = shell::SplitCommands(pattern.prefix ? spec.substr(0, spec.size() - 2) : spec);
  if (commands.size() == 1 && !commands.front().words.empty()) {
    pattern.command = std::move(commands.front());
  }
  return pattern;
}

// A deny rule for `rm` also refuses `/bin/rm`, and `/bin/r?` that may
// expand to it: what runs may be the same.
bool SameProgram(const std::string& want, const std::string& have, Match how) {
  if (want == have) return true;
  if (how != Match::kAny || want.find('/') != std::string::npos) return false;
  const std::string base_name = have.substr(have.rfind('/') + 1);  // npos + 1 is 0
  if (base_name == want) return true;
  return base_name.find_first_of("*?[") != std::string::npos &&
         ::fnmatch(base_name.c_str(), want.c_str(), 0) == 0;
}

// "git push" covers "git push", "git push origin", not "git pushx". An exact
// allow rule covers the command with the same output files only; a deny
// rule refuses the command whatever its redirections.
bool CommandMatches(const CommandPattern& pattern, const shell::SimpleCommand& command, Match how) {
  if (!pattern.command) return false;
  const auto& want = pattern.command->words;
  const auto& have = command.words;
  if (have.size() < want.size() || (!pattern.prefix && have.size() != want.size())) return false;
  if (!pattern.prefix && how == Match::kEvery &&
      command.output_files != pattern.command->output_files) {
    return false;
  }
  return SameProgram(want[0], have[0], how) &&
         std::equal(want.begin() + 1, want.end(), have.begin() + 1);
}

// Whether `words` hold the pattern's words in a row, anywhere.
bool ContainsWords(const std::vector<std::string>& words, const CommandPattern& pattern) {
  if (!pattern.command) return false;
  const auto& want = pattern.command->words;
  for (std::size_t i = 0; i + want.size() <= words.size(); ++i) {
    if (SameProgram(want[0], words[i], Match::kAny) &&
        std::equal(want.begin() + 1, want.end(), words.begin() + static_cast<long>(i) + 1)) {
      return true;
    }
  }
  return false;
}

// Deny: any command the line can run, inside substitutions, nested shells
// and past wrappers (reachable_commands.h). Where the line runs something
// it does not show, the rule's words anywhere in it are enough: a deny
// rule errs on the side of refusing.
bool DenyMatches(const std::string& spec, const std::string& line) {
  if (spec == line) return true;
  const CommandPattern pattern = PatternOf(spec);
  const ReachableCommands reach = FindReachableCommands(line);
  for (const shell::SimpleCommand& command : reach.commands) {
    if (CommandMatches(pattern, command, Match::kAny)) return true;
  }
  if (!reach.opaque) return false;
  if (ContainsWords(LooseWords(line), pattern)) return true;
  return std::any_of(
      reach.commands.begin(), reach.commands.end(),
      [&](const shell::SimpleCommand& c) { return ContainsWords(c.words, pattern); });
}

bool BashMatches(const std::string& spec, const std::string& line, Match how) {
  if (how == Match::kAny) return DenyMatches(spec, line);
  // An allow rule covers only what the parser sees: a substitution runs,
  // or makes words from, text no rule was checked against.
  if (shell::HasSubstitution(line)) return false;
  if (spec == line) return true;  // the exact line, compound or not
  const auto commands = shell::SplitCommands(line);
  if (commands.empty()) return false;
  const CommandPattern pattern = PatternOf(spec);
  return std::all_of(commands.begin(), commands.end(), [&](const shell::SimpleCommand& c) {
    return CommandMatches(pattern, c, Match::kEvery);
  });
}

std::string HostOf(const std::string& url) {
  std::size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  std::size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? end : end - start);
  if (auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  if (auto colon = authority.rfind(':');
      colon != std::string::npos && authority.find(']') == std::string::npos) {
    authority = authority.substr(0, colon);
  }
  return AsciiLower(authority);
}

}  // namespace

bool AllowedByRules(const std::vector<Rule>& allow, std::string_view tool,
                    const nlohmann::json& arguments, const Place& place) {
  for (const Rule& rule : allow) {
    if (RuleMatches(rule, tool, arguments, place, Match::kEvery)) return true;
  }
  if (tool != "bash") return false;
  // Each simple command covered by some rule: "make && git push" under
  // bash(make) and bash(git push:*).
  const std::string line = StringArgument(arguments, "command");
  if (shell::HasSubstitution(line)) return false;
  const auto commands = shell::SplitCommands(line);
  std::vector<CommandPattern> patterns;
  for (const Rule& rule : allow) {
    if (rule.tool == "bash" && rule.spec) patterns.push_back(PatternOf(*rule.spec));
  }
  return !commands.empty() &&
         std::all_of(commands.begin(), commands.end(), [&](const shell::SimpleCommand& command) {
           return std::any_of(patterns.begin(), patterns.end(), [&](const CommandPattern& p) {
             return CommandMatches(p, command, Match::kEvery);
           });
         });
}

Result<Rule, std::string> ParseRule(std::string_view text) {
  Rule rule{std::string(), std::nullopt, std::string(text)};
  const std::size_t open = text.find('(');
  rule.tool = std::string(text.substr(0, open));
  if (rule.tool.empty() || !std::all_of(rule.tool.begin(), rule.tool.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_' || c == '-';
      })) {
    return Err(std::string(text) + ": a rule is TOOL or TOOL(SPEC), e.g. bash(npm test:*)");
  }
  if (open == std::string_view::npos) return rule;
  if (!text.ends_with(')')) return Err(std::string(text) + ": missing closing parenthesis");
  rule.spec = std::string(text.substr(open + 1, text.size() - open - 2));
  if (rule.spec->empty()) return Err(std::string(text) + ": empty parentheses (write just TOOL)");
  if (rule.spec->starts_with("domain:") && rule.spec->size() == 7) {
    return Err(std::string(text) + ": domain: needs a host, e.g. domain:example.com");
  }
  return rule;
}

Result<Rules, std::string> ParseRules(const std::vector<std::string>& allow,
                                      const std::vector<std::string>& deny) {
  Rules rules;
  for (const auto& [list, out, name] : {std::tuple{&allow, &rules.allow, "permissions.allow"},
                                        std::tuple{&deny, &rules.deny, "permissions.deny"}}) {
    for (const std::string& text : *list) {
      auto rule = ParseRule(text);
      if (!rule) return Err(std::string(name) + ": " + rule.error());
      out->push_back(std::move(*rule));
    }
  }
  return rules;
}

std::string ResolvedPath(const nlohmann::json& arguments, const std::string& cwd) {
  std::string path = StringArgument(arguments, "file_path");
  if (path.empty()) path = StringArgument(arguments, "path");
  if (path.empty()) return "";
  std::filesystem::path full = std::filesystem::path(cwd) / path;  // an absolute path stays
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(full, error);
  return (error ? full.lexically_normal() : resolved).string();
}

std::optional<std::string> RelativeInside(const std::string& path, const std::string& root) {
  if (root.empty()) return std::nullopt;
  if (path == root) return std::string(".");
  const std::string prefix = root.ends_with('/') ? root : root + "/";
  if (!path.starts_with(prefix)) return std::nullopt;
  return path.substr(prefix.size());
}

bool RuleMatches(const Rule& rule, std::string_view tool, const nlohmann::json& arguments,
                 const Place& place, Match how) {
  if (rule.tool != tool) return false;
  if (!rule.spec) return true;
  const std::string& spec = *rule.spec;
  if (spec.starts_with("domain:")) {
    const std::string host = HostOf(StringArgument(arguments, "url"));
    const std::string domain = spec.substr(7);
    return !host.empty() && (host == domain || host.ends_with("." + domain));
  }
  if (tool == "bash") return BashMatches(spec, StringArgument(arguments, "command"), how);
  const std::string path = ResolvedPath(arguments, place.cwd);
  if (path.empty()) return false;
  const auto relative = RelativeInside(path, place.workspace);
  if (!relative) return false;  // path globs are rooted in the workspace
  auto glob = search::GlobPattern::Compile(spec, {.dot_is_special = false});
  return glob && glob->Matches(*relative);
}

}  // namespace ikigai::permissions
