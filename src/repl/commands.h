// The REPL's slash commands: one table (name, arguments, help), parsing,
// and the help text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ikigai::repl {

enum class CommandId {
  kTool,
  kRefresh,
  kMcp,
  kSkills,
  kSkill,
  kModel,
  kPermissions,
  kStatus,
  kTasks,
  kCompact,
  kClear,
  kHelp,
  kQuit
};

enum class Arguments { kNone, kOptional };

struct Command {
  CommandId id;
  std::string_view name;   // without the slash
  std::string_view usage;  // "/model [NAME]"
  std::string_view help;
  Arguments arguments;
};

const std::vector<Command>& Commands();
const Command* FindCommand(std::string_view name);

struct CommandLine {
  std::string name;      // "model"
  std::string argument;  // "gpt-4.1", trimmed; empty if none
};

// "/model gpt-4.1" -> {"model", "gpt-4.1"}. Not a command (nullopt): a line
// that does not start with '/', or whose first word holds another '/' (a
// message that starts with a path, "/etc/hosts looks wrong").
std::optional<CommandLine> ParseCommandLine(std::string_view line);

// "Unknown command: /foo. Type /help to see the commands."
std::string UnknownCommandText(std::string_view name);

// The commands, then the keys (multi-line input, Ctrl+C, history).
std::string HelpText();

}  // namespace ikigai::repl
