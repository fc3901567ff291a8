#include "repl/commands.h"

#include <algorithm>

namespace ikigai::repl {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {CommandId::kTool, "tool", "/tool [NAME]",
       "list the tools, or show one tool's path and schema", Arguments::kOptional},
      {CommandId::kRefresh, "refresh", "/refresh",
       "discover the tools again (after adding one to ./.ikigai/tools/)", Arguments::kNone},
      {CommandId::kMcp, "mcp", "/mcp",
       "the MCP servers: each one's state (starting, ready, failed and why) and its tools",
       Arguments::kNone},
      {CommandId::kSkills, "skills", "/skills",
       "the skills: name, description, where each comes from, whether it is loaded",
       Arguments::kNone},
      {CommandId::kSkill, "skill", "/skill NAME",
       "load a skill by hand: its instructions go to the model with your next message, its "
       "tools are offered from then on",
       Arguments::kOptional},
      {CommandId::kModel, "model", "/model [NAME]", "show the model, or switch to NAME",
       Arguments::kOptional},
      {CommandId::kPermissions, "permissions", "/permissions [MODE]",
       "show the permission mode, or switch to read-only, ask, auto-edit, auto or unrestricted",
       Arguments::kOptional},
      {CommandId::kStatus, "status", "/status",
       "the model, the permission mode, what the sandbox allows, how full the context is, the "
       "tokens used and the session",
       Arguments::kNone},
      {CommandId::kTasks, "tasks", "/tasks",
       "the session's background commands and subagents, with their status and age",
       Arguments::kNone},
      {CommandId::kCompact, "compact", "/compact [FOCUS]",
       "summarize the conversation so far and go on from the summary (FOCUS: what to keep above "
       "all)",
       Arguments::kOptional},
      {CommandId::kClear, "clear", "/clear", "start a new conversation (and a new session log)",
       Arguments::kNone},
      {CommandId::kHelp, "help", "/help", "this help", Arguments::kNone},
      {CommandId::kQuit, "quit", "/quit", "leave ikigai (also Ctrl+D on an empty line)",
       Arguments::kNone},
  };
  return commands;
}

const Command* FindCommand(std::string_view name) {
  for (const auto& command : Commands()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

std::optional<CommandLine> ParseCommandLine(std::string_view line) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto start = line.find_first_not_of(kSpace);
  if (start == std::string_view::npos || line[start] != '/') return std::nullopt;
  line.remove_prefix(start + 1);
  const auto end_of_name = std::min(line.find_first_of(kSpace), line.size());
  const std::string_view name = line.substr(0, end_of_name);
  if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(end_of_name);
  const auto first = rest.find_first_not_of(kSpace);
  rest = first == std::string_view::npos ? std::string_view() : rest.substr(first);
  const auto last = rest.find_last_not_of(kSpace);
  rest = last == std::string_view::npos ? std::string_view() : rest.substr(0, last + 1);
  return CommandLine{std::string(name), std::string(rest)};
}

std::string UnknownCommandText(std::string_view name) {
  return "Unknown command: /" + std::string(name) + ". Type /help to see the commands.";
}

std::string HelpText() {
  std::string text = "Commands:\n";
  for (const auto& command : Commands()) {
    std::string usage(command.usage);
    usage.resize(std::max<std::size_t>(usage.size() + 2, 16), ' ');
    text += "  " + usage + std::string(command.help) + "\n";
  }
  text +=
      "Anything else is a message to the model.\n"
      "Keys:\n"
      "  Enter           send\n"
      "  Alt+Enter       a new line (or end the line with \\ and press Enter); pasted text\n"
      "                  keeps its newlines\n"
      "  Ctrl+C          stop the running answer or tools; twice on an empty line: quit\n"
      "  Ctrl+D          quit (on an empty line)\n"
      "  Up, Down        history (kept in ~/.ikigai/history); Ctrl+R searches it\n";
  return text;
}

}  // namespace ikigai::repl
