#include "permissions/policy.h"

#include "base/shell_words.h"
#include "permissions/read_only_command.h"

namespace ikigai::permissions {
namespace {

struct ModeInfo {
  Mode mode;
  std::string_view name;
  std::string_view description;
};

constexpr ModeInfo kModes[] = {
    {Mode::kReadOnly, "read-only", "only calls that read run; everything else is refused"},
    {Mode::kAsk, "ask", "reads run; edits and commands ask first"},
    {Mode::kAutoEdit, "auto-edit", "reads and edits inside the workspace run; commands ask"},
    {Mode::kAuto, "auto", "everything runs, inside the sandbox"},
    {Mode::kUnrestricted, "unrestricted", "everything runs, with no sandbox"},
};

std::string StringArgument(const nlohmann::json& arguments, const char* name) {
  if (!arguments.is_object()) return "";
  auto it = arguments.find(name);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : "";
}

bool IsFileEditInWorkspace(const CallFacts& call, const Place& place) {
  if (call.tool != "file_write" && call.tool != "file_edit") return false;
  const std::string path = ResolvedPath(call.arguments, place.cwd);
  return !path.empty() && RelativeInside(path, place.workspace).has_value();
}

std::string Describe(const CallFacts& call) {
  const std::string command = StringArgument(call.arguments, "command");
  if (call.tool == "bash" && !command.empty()) return "bash `" + command + "`";
  std::string path = StringArgument(call.arguments, "file_path");
  if (path.empty()) path = StringArgument(call.arguments, "path");
  return path.empty() ? call.tool : call.tool + " " + path;
}

}  // namespace

std::optional<Mode> ParseMode(std::string_view name) {
  for (const ModeInfo& info : kModes) {
    if (info.name == name) return info.mode;
  }
  return std::nullopt;
}

std::string_view ModeName(Mode mode) { return kModes[static_cast<int>(mode)].name; }
std::string_view ModeDescription(Mode mode) { return kModes[static_cast<int>(mode)].description; }

bool IsReadOnlyCall(const CallFacts& call) {
  if (call.read_only_hint) return true;
  return call.tool == "bash" && IsReadOnlyCommand(StringArgument(call.arguments, "command"));
}

Decision Decide(const CallFacts& call, Mode mode, const Rules& rules, const Place& place) {
  for (const Rule& rule : rules.deny) {
    if (RuleMatches(rule, call.tool, call.arguments, place, Match::kAny)) {
      return {Verdict::kDeny,
              Describe(call) + " is refused by the rule \"" + rule.text + "\" in permissions.deny",
              "remove \"" + rule.text + "\" from permissions.deny"};
    }
  }
  // A tool that reaches the outside world (web_fetch, web_search) asks in
  // ask mode even when it only reads: what it sends out is the question.
  const bool asks_for_network = mode == Mode::kAsk && call.open_world_hint;
  if (mode == Mode::kAuto || mode == Mode::kUnrestricted ||
      (IsReadOnlyCall(call) && !asks_for_network)) {
    return {Verdict::kAllow, "", ""};
  }
  const std::string rule = RuleToAllow(call, place);
  if (mode == Mode::kReadOnly) {
    return {Verdict::kDeny,
            Describe(call) + " does more than read, and the permission mode is read-only",
            "--permissions ask (or auto-edit, auto)"};
  }
  if (AllowedByRules(rules.allow, call.tool, call.arguments, place))
    return {Verdict::kAllow, "", ""};
  const bool edit = IsFileEditInWorkspace(call, place);
  if (mode == Mode::kAutoEdit && edit) return {Verdict::kAllow, "", ""};
  std::string why = Describe(call) + " needs approval in " + std::string(ModeName(mode)) + " mode";
  if (call.open_world_hint) why += " (it reaches the network)";
  return {
      Verdict::kAsk, why,
      std::string(edit && mode == Mode::kAsk ? "--permissions auto-edit" : "--permissions auto") +
          ", or \"" + rule + "\" in permissions.allow"};
}

std::string RuleToAllow(const CallFacts& call, const Place& place) {
  if (call.tool == "bash") {
    const std::string command = StringArgument(call.arguments, "command");
    const auto commands = shell::SplitCommands(command);
    if (commands.size() != 1 || commands.front().words.empty() || shell::HasSubstitution(command) ||
        !commands.front().output_files.empty()) {
      return "bash(" + command + ")";
    }
    const auto& words = commands.front().words;
    std::string prefix = words[0];
    // Tools with subcommands: allow the subcommand, not the whole program.
    for (std::string_view program : {"git", "npm", "pnpm", "yarn", "cargo", "go", "make", "docker",
                                     "kubectl", "pip", "python3", "python", "node", "npx", "uv"}) {
      if (words[0] == program && words.size() > 1 && !words[1].starts_with("-")) {
        prefix += " " + words[1];
      }
    }
    return "bash(" + prefix + ":*)";
  }
  const std::string path = ResolvedPath(call.arguments, place.cwd);
  if (!path.empty()) {
    if (auto relative = RelativeInside(path, place.workspace)) {
      return call.tool + "(" + *relative + ")";
    }
  }
  return call.tool;
}

}  // namespace ikigai::permissions
