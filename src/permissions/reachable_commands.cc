#include "permissions/reachable_commands.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>

namespace ikigai::permissions {
namespace {

using shell::SimpleCommand;
using Words = std::vector<std::string>;

// Scripts inside scripts (sh -c inside $(...) inside eval ...) are read to
// this depth; deeper is opaque.
constexpr int kMaxNesting = 8;

std::string_view BaseName(std::string_view word) {
  const std::size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool IsAssignment(std::string_view word) {
  const std::size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  if (std::isdigit(static_cast<unsigned char>(word[0]))) return false;
  for (char c : word.substr(0, eq)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool IsOption(std::string_view word) { return word.size() > 1 && word[0] == '-'; }

// A command name the shell computes when it runs: an expansion, a glob
// (`/bin/r?`), a brace expansion (`{rm,-rf,x}`).
bool IsComputed(std::string_view word) {
  if (word == "[" || word == "[[") return false;  // test
  return word.find_first_of("$`*?[") != std::string_view::npos ||
         (word.find('{') != std::string_view::npos && word.find(',') != std::string_view::npos);
}

std::string Joined(const Words& words, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < words.size(); ++i) {
    if (i > from) out += ' ';
    out += words[i];
  }
  return out;
}

// Words that run the command after them: reserved words, and programs that
// run their arguments as a command, with their options that take a value
// (space-separated) and the operands they take before the command.
struct Wrapper {
  std::string_view name;
  std::string_view options_with_value;
  int operands;
};

constexpr Wrapper kWrappers[] = {
    {"!", "", 0},
    {"{", "", 0},
    {"then", "", 0},
    {"do", "", 0},
    {"else", "", 0},
    {"elif", "", 0},
    {"if", "", 0},
    {"while", "", 0},
    {"until", "", 0},
    {"coproc", "", 0},
    {"time", "-f -o --format --output", 0},
    {"command", "", 0},
    {"builtin", "", 0},
    {"exec", "-a", 0},
    {"nohup", "", 0},
    {"setsid", "", 0},
    {"busybox", "", 0},
    {"nice", "-n --adjustment", 0},
    {"ionice", "-c -n -p -P -u --class --classdata", 0},
    {"stdbuf", "-i -o -e --input --output --error", 0},
    {"timeout", "-s -k --signal --kill-after", 1},
    {"env", "-u -C -S --unset --chdir --split-string", 0},
    {"doas", "-u -C", 0},
    {"sudo", "-u -g -C -D -h -p -r -t -U -T -R --user --group --chdir --host --prompt", 0},
    {"runuser", "-u -g -G --user --group --supp-group", 0},
    {"xargs", "-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs", 0},
    {"chroot", "--userspec --groups", 1},
    {"taskset", "", 1},
    {"chrt", "", 1},
    {"unshare", "", 0},
    {"nsenter", "-t -S -G --target", 0},
    {"flock", "-w -E --timeout --conflict-exit-code", 1},
    {"unbuffer", "", 0},
    {"strace", "-o -e -p -s -u -E -a", 0},
    {"ltrace", "-o -e -p -s -u -a", 0},
    {"systemd-run", "-p -u --unit --property", 0},
    {"firejail", "", 0},
};

const Wrapper* FindWrapper(std::string_view name) {
  for (const Wrapper& w : kWrappers) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

bool TakesValue(const Wrapper& wrapper, std::string_view option) {
  std::string_view list = wrapper.options_with_value;
  while (!list.empty()) {
    const std::size_t space = list.find(' ');
    if (list.substr(0, space) == option) return true;
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return false;
}

bool IsShell(std::string_view name) {
  for (std::string_view shell : {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"}) {
    if (name == shell) return true;
  }
  return false;
}

// Programs that run code given as text or read from a file or stdin, in a
// language this file does not read.
bool IsInterpreter(std::string_view name) {
  for (std::string_view prefix :
       {"python", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "awk", "gawk",
        "mawk", "nawk", "Rscript", "tclsh", "pwsh", "osascript", "source", "."}) {
    if (name == prefix) return true;
  }
  return name.starts_with("python") || name.starts_with("perl") || name.starts_with("ruby");
}

// The script of `sh -c SCRIPT` (also -ec, -xc ...), if there is one.
std::optional<std::string> ShellScript(const Words& args) {
  bool dash_c = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-o" || arg == "+o") {
      ++i;  // takes an option name
    } else if ((arg.starts_with("-") || arg.starts_with("+")) && arg.size() > 1 &&
               !arg.starts_with("--")) {
      dash_c = dash_c || (arg[0] == '-' && arg.find('c') != std::string::npos);
    } else if (!arg.starts_with("--")) {
      if (dash_c) return arg;
      return std::nullopt;  // a script file
    }
  }
  return std::nullopt;  // a script on stdin
}

class Collector {
 public:
  ReachableCommands Run(std::string_view line) {
    Script(line, 0);
    return std::move(out_);
  }

 private:
  void Script(std::string_view script, int depth) {
    if (depth > kMaxNesting) {
      out_.opaque = true;
      return;
    }
    const auto substitutions = shell::FindSubstitutions(script);
    // What a substitution prints becomes words, even a command's name.
    if (!substitutions.empty()) out_.opaque = true;
    for (const shell::Substitution& substitution : substitutions) {
      Script(substitution.body, depth + 1);
    }
    for (const SimpleCommand& command : shell::SplitCommands(script)) Command(command, depth);
  }

  // The command as written, then again past each wrapper, and the scripts
  // it hands to a shell.
  void Command(const SimpleCommand& command, int depth) {
    out_.commands.push_back(command);
    const Words& words = command.words;
    std::size_t i = 0;
    for (;;) {
      while (i < words.size() && IsAssignment(words[i])) ++i;
      if (i >= words.size()) return;
      if (i > 0) {
        out_.commands.push_back(
            {Words(words.begin() + static_cast<long>(i), words.end()), command.output_files});
      }
      if (IsComputed(words[i])) out_.opaque = true;
      const std::string_view name = BaseName(words[i]);
      const Wrapper* wrapper = FindWrapper(name);
      if (wrapper == nullptr) break;
      ++i;
      while (i < words.size() && IsOption(words[i])) {
        const std::string& option = words[i];
        if (option == "--") {
          ++i;
          break;
        }
        if (name == "env" && (option == "-S" || option == "--split-string") &&
            i + 1 < words.size()) {
          Script(words[i + 1], depth + 1);
        } else if (name == "env" && option.starts_with("-S")) {
          Script(std::string_view(option).substr(2), depth + 1);
        } else if (name == "env" && option.starts_with("--split-string=")) {
          Script(std::string_view(option).substr(15), depth + 1);
        } else if (name == "flock" && (option == "-c" || option == "--command") &&
                   i + 2 < words.size()) {
          Script(words[i + 2], depth + 1);  // flock [options] FILE -c SCRIPT
        }
        i += TakesValue(*wrapper, option) ? 2 : 1;
      }
      i += static_cast<std::size_t>(wrapper->operands);
    }
    Program(Words(words.begin() + static_cast<long>(i), words.end()), depth);
  }

  // A command past its wrappers: what it runs in turn.
  void Program(const Words& words, int depth) {
    const std::string_view name = BaseName(words[0]);
    const Words args(words.begin() + 1, words.end());
    if (IsShell(name)) {
      if (auto script = ShellScript(args)) {
        Script(*script, depth + 1);
      } else {
        out_.opaque = true;  // a script from stdin or a file
      }
    } else if (name == "eval") {
      Script(Joined(args, 0), depth + 1);
    } else if (name == "su" || name == "runuser") {
      for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == "-c" || args[i] == "--command") Script(args[i + 1], depth + 1);
      }
    } else if (name == "watch") {  // runs its words through sh -c
      std::size_t i = 0;
      while (i < args.size() && IsOption(args[i])) {
        i += args[i] == "-n" || args[i] == "--interval" || args[i] == "-q" ? 2 : 1;
      }
      Script(Joined(args, i), depth + 1);
    } else if (name == "trap") {
      if (!args.empty() && !IsOption(args[0])) Script(args[0], depth + 1);
    } else if (name == "alias") {
      for (const std::string& arg : args) {
        if (const std::size_t eq = arg.find('='); eq != std::string::npos) {
          Script(std::string_view(arg).substr(eq + 1), depth + 1);
        }
      }
    } else if (name == "find") {
      FindExec(args, depth);
    } else if (name == "git") {
      Git(args);
    } else if (IsInterpreter(name)) {
      out_.opaque = true;
    }
  }

  // find ... -exec CMD ... ; (also -execdir, -ok, -okdir, and + for ;).
  void FindExec(const Words& args, int depth) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i] != "-exec" && args[i] != "-execdir" && args[i] != "-ok" && args[i] != "-okdir")
        continue;
      std::size_t end = i + 1;
      while (end < args.size() && args[end] != ";" && args[end] != "+") ++end;
      if (end > i + 1) {
        Command(
            {Words(args.begin() + static_cast<long>(i) + 1, args.begin() + static_cast<long>(end)),
             {}},
            depth);
      }
      i = end;
    }
  }

  // git's global options before the subcommand: `git -C . push` is a push.
  // Config on the command line can define aliases that run a shell
  // (`-c alias.x='!rm ...'`) or a pager: opaque.
  void Git(const Words& args) {
    std::size_t i = 0;
    while (i < args.size() && IsOption(args[i])) {
      const std::string& option = args[i];
      if (option == "-c" || option.starts_with("--config-env")) out_.opaque = true;
      const bool takes_value = option == "-C" || option == "-c" || option == "--git-dir" ||
                               option == "--work-tree" || option == "--namespace" ||
                               option == "--super-prefix" || option == "--config-env" ||
                               option == "--exec-path" || option == "--attr-source";
      i += takes_value ? 2 : 1;
    }
    if (i == 0 || i >= args.size()) return;
    Words normal{"git"};
    normal.insert(normal.end(), args.begin() + static_cast<long>(i), args.end());
    out_.commands.push_back({std::move(normal), {}});
  }

  ReachableCommands out_;
};

}  // namespace

ReachableCommands FindReachableCommands(std::string_view line) { return Collector().Run(line); }

std::vector<std::string> LooseWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == '\'' || c == '"' || c == '\\') continue;
    if (std::isspace(static_cast<unsigned char>(c)) ||
        std::strchr(";&|()<>{}`$=!,", c) != nullptr) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
      continue;
    }
    word += c;
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

}  // namespace ikigai::permissions
