#include "permissions/rules.h"

#include <algorithm>
#include <filesystem>

#include "base/shell_words.h"
#include "search/glob_pattern.h"

namespace ikigai::permissions {
namespace {

std::string StringArgument(const nlohmann::json& arguments, const char* name) {
  if (!arguments.is_object()) return "";
  auto it = arguments.find(name);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : "";
}

// "git push" covers "git push", "git push origin", not "git pushx".
bool CommandMatches(const std::string& spec, const shell::SimpleCommand& command) {
  const bool prefix = spec.ends_with(":*");
  const auto pattern = shell::SplitCommands(prefix ? spec.substr(0, spec.size() - 2) : spec);
  if (pattern.size() != 1) return false;
  const auto& want = pattern.front().words;
  const auto& have = command.words;
  if (have.size() < want.size() || (!prefix && have.size() != want.size())) return false;
  if (!prefix && command.output_files != pattern.front().output_files) return false;
  return std::equal(want.begin(), want.end(), have.begin());
}

bool BashMatches(const std::string& spec, const std::string& line, Match how) {
  if (spec == line) return true;  // the exact line, compound or not
  const auto commands = shell::SplitCommands(line);
  if (commands.empty()) return false;
  const auto matches = [&spec](const shell::SimpleCommand& c) { return CommandMatches(spec, c); };
  return how == Match::kEvery ? std::all_of(commands.begin(), commands.end(), matches)
                              : std::any_of(commands.begin(), commands.end(), matches);
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
  std::transform(authority.begin(), authority.end(), authority.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return authority;
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
  const auto commands = shell::SplitCommands(line);
  return !commands.empty() &&
         std::all_of(commands.begin(), commands.end(), [&](const shell::SimpleCommand& command) {
           return std::any_of(allow.begin(), allow.end(), [&](const Rule& rule) {
             return rule.tool == "bash" && (!rule.spec || CommandMatches(*rule.spec, command));
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
