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

// Programs that run the command, script or code in their arguments: a
// prefix rule on them (`bash(timeout:*)`, `bash(sh:*)`) would allow any
// command.
bool RunsOtherCommands(std::string_view program) {
  for (std::string_view name :
       {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "env", "timeout", "nice",
        "nohup", "xargs", "sudo", "doas", "su", "runuser", "exec", "eval", "command", "builtin",
        "time", "stdbuf", "ionice", "chroot", "setsid", "busybox", "watch", "flock", "nsenter",
        "unshare", "taskset", "chrt", "strace", "ltrace", "unbuffer", "script", "parallel", "find",
        "fd", "source", ".", "trap", "alias", "coproc", "systemd-run", "firejail",
        // Reserved words: `! make` is make, `bash(!:*)` would be anything.
        "!", "{", "if", "then", "else", "elif", "while", "until", "do", "case", "for", "select",
        "function"}) {
    if (program == name) return true;
  }
  return false;
}

// Programs whose first argument says what runs: `git push`, `npm test`,
// `python3 manage.py`. The rule keeps it, unless it is an option (`git -C
// DIR`, `python3 -c CODE`): then only the exact command is safe.
bool HasSubcommands(std::string_view program) {
  for (std::string_view name :
       {"git",     "npm",  "pnpm", "yarn",    "cargo",  "go",   "make", "docker",
        "kubectl", "pip",  "pip3", "python3", "python", "node", "npx",  "uv",
        "perl",    "ruby", "php",  "deno",    "bun",    "lua"}) {
    if (program == name) return true;
  }
  return false;
}

std::string BashRuleToAllow(const std::string& command) {
  // Allow rules never cover a substitution (rules.h): no rule would allow
  // this call again. And a command ending in ":*" would read as a prefix.
  if (shell::HasSubstitution(command) || command.ends_with(":*")) return "";
  const std::string exact = "bash(" + command + ")";
  const auto commands = shell::SplitCommands(command);
  if (commands.size() != 1 || commands.front().words.empty() ||
      !commands.front().output_files.empty()) {
    return exact;
  }
  const auto& words = commands.front().words;
  const std::string& program = words[0];
  const bool computed = program.find_first_of("$`*?[{=\\") != std::string::npos;
  const std::string base_name = program.substr(program.rfind('/') + 1);  // npos + 1 is 0
  if (computed || RunsOtherCommands(base_name)) return exact;
  if (!HasSubcommands(program)) return "bash(" + program + ":*)";
  // Tools with subcommands: allow the subcommand, not the whole program.
  if (words.size() == 1 || words[1].starts_with("-")) return exact;
  return "bash(" + program + " " + words[1] + ":*)";
}

// A path as a glob that matches that path only.
std::string GlobLiteral(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
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
  std::string how = edit && mode == Mode::kAsk ? "--permissions auto-edit" : "--permissions auto";
  if (!rule.empty()) how += ", or \"" + rule + "\" in permissions.allow";
  return {Verdict::kAsk, why, how};
}

std::string RuleToAllow(const CallFacts& call, const Place& place) {
  if (call.tool == "bash") return BashRuleToAllow(StringArgument(call.arguments, "command"));
  const std::string path = ResolvedPath(call.arguments, place.cwd);
  if (path.empty()) return call.tool;
  // Path rules are globs relative to the workspace: a path outside it has
  // none, and the plain tool name would allow every path.
  const auto relative = RelativeInside(path, place.workspace);
  return relative ? call.tool + "(" + GlobLiteral(*relative) + ")" : "";
}

}  // namespace ikigai::permissions
