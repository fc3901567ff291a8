#include "blocklist.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <span>
#include <vector>

#include "base/shell_words.h"

namespace ikigai::bash_tool {
namespace {

using shell::SimpleCommand;
using shell::SplitCommands;

using Words = std::span<const std::string>;

// Commands nested in sh -c '...' or eval are checked to this depth.
constexpr int kMaxNesting = 8;

// --- Fork bombs -----------------------------------------------------------

bool IsFunctionNameChar(char c) {
  return c != '\0' && std::strchr(";&|(){}<>'\"`$\\", c) == nullptr &&
         !std::isspace(static_cast<unsigned char>(c));
}

// The shape NAME(){ NAME|NAME& }, or function NAME { ... }, whatever the
// name and the spacing: a function that pipes itself into itself in the
// background doubles its processes at every call.
bool HasForkBomb(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  }
  for (std::size_t brace = s.find('{'); brace != std::string::npos;
       brace = s.find('{', brace + 1)) {
    std::size_t end = brace + 1;
    while (end < s.size() && IsFunctionNameChar(s[end])) ++end;
    const std::string name = s.substr(brace + 1, end - brace - 1);
    if (name.empty()) continue;
    std::string_view rest = std::string_view(s).substr(end);
    const std::string calls = "|" + name + "&";
    if (!rest.starts_with(calls)) continue;
    rest.remove_prefix(calls.size());
    if (rest.starts_with(";")) rest.remove_prefix(1);
    if (!rest.starts_with("}")) continue;
    const std::string_view before = std::string_view(s).substr(0, brace);
    if (before.ends_with(name + "()") || before.ends_with("function" + name)) return true;
  }
  return false;
}

// --- Words ----------------------------------------------------------------

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

// Words that run the command after them: reserved words, and programs that
// run their arguments as a command, with their options that take a value
// and the operands they take before the command.
struct Wrapper {
  std::string_view name;
  std::string_view options_with_value;  // space-separated
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
    {"time", "-f -o", 0},
    {"command", "", 0},
    {"builtin", "", 0},
    {"exec", "-a", 0},
    {"nohup", "", 0},
    {"setsid", "", 0},
    {"busybox", "", 0},
    {"nice", "-n", 0},
    {"ionice", "-c -n -p -P -u", 0},
    {"stdbuf", "-i -o -e", 0},
    {"timeout", "-s -k", 1},
    {"env", "-u -C -S", 0},
    {"doas", "-u -C", 0},
    {"sudo", "-u -g -C -D -h -p -r -t -U -T -R", 0},
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

// Index of the word naming the command that really runs.
std::size_t CommandStart(Words words) {
  std::size_t i = 0;
  while (i < words.size()) {
    if (IsAssignment(words[i])) {
      ++i;
      continue;
    }
    const Wrapper* wrapper = FindWrapper(BaseName(words[i]));
    if (wrapper == nullptr) break;
    ++i;
    while (i < words.size() && IsOption(words[i])) {
      if (words[i] == "--") {
        ++i;
        break;
      }
      i += TakesValue(*wrapper, words[i]) ? 2 : 1;
    }
    i += static_cast<std::size_t>(wrapper->operands);
  }
  return i;
}

// --- Rules ----------------------------------------------------------------

// /dev/ names of disks and their partitions.
bool IsBlockDevice(std::string_view path) {
  if (!path.starts_with("/dev/")) return false;
  path.remove_prefix(5);
  for (std::string_view links : {"disk/", "mapper/"}) {  // /dev/disk/by-id/..., LVM volumes
    if (path.starts_with(links) && path.size() > links.size()) return true;
  }
  // sda, sdb1, hda, vda, xvda1, nvme0n1p2, mmcblk0p1, md0, dm-3 (not sda.img).
  for (std::string_view disk : {"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-"}) {
    if (!path.starts_with(disk) || path.size() == disk.size()) continue;
    const std::string_view rest = path.substr(disk.size());
    if (std::all_of(rest.begin(), rest.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) {
      return true;
    }
  }
  return false;
}

Blocked BlockDeviceWrite(std::string_view how, std::string_view device) {
  return {std::string(how) + " would overwrite the block device " + std::string(device) +
              " and destroy the data on it",
          "Write to a regular file instead (for example of=./disk.img), or ask the user to do "
          "it by hand."};
}

// Lexical normal form of an absolute path: no empty, . or .. components.
std::string NormalPath(std::string_view path, bool* above_start = nullptr) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty() && above_start != nullptr) *above_start = true;
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view part : parts) out.append("/").append(part);
  return out;  // "" is the starting directory itself
}

// What a recursive rm of `target` would wipe out, if it is / or a home.
std::optional<std::string> ProtectedDirectory(std::string target, std::string_view home) {
  for (std::string_view var : {"${HOME}", "$HOME"}) {
    if (target.starts_with(var) && (target.size() == var.size() || target[var.size()] == '/')) {
      std::string from_home(1, '~');
      from_home.append(target, var.size());
      target = std::move(from_home);
    }
  }
  // A final * means everything in the directory: as bad as the directory.
  if (target.ends_with("/*")) target.resize(target.size() - 1);
  if (target == "~" || target.starts_with("~/")) {
    bool above_home = false;
    if (NormalPath(std::string_view(target).substr(1), &above_home).empty()) {
      return above_home ? "a directory above the home directory" : "the home directory";
    }
    return std::nullopt;
  }
  if (!target.starts_with("/")) return std::nullopt;
  const std::string normal = NormalPath(target);
  if (normal.empty()) return "the whole filesystem";
  if (!home.empty() && home.starts_with("/") && normal == NormalPath(home)) {
    return "the home directory";
  }
  return std::nullopt;
}

std::optional<Blocked> CheckRm(Words args, std::string_view home) {
  bool recursive = false, options_done = false;
  std::vector<std::string> targets;
  for (const std::string& arg : args) {
    if (!options_done && arg == "--") {
      options_done = true;
    } else if (!options_done && arg.starts_with("--")) {
      recursive = recursive || arg == "--recursive";
    } else if (!options_done && IsOption(arg)) {
      recursive = recursive || arg.find_first_of("rR") != std::string::npos;
    } else {
      targets.push_back(arg);
    }
  }
  if (!recursive) return std::nullopt;
  for (const std::string& target : targets) {
    if (auto what = ProtectedDirectory(target, home)) {
      return Blocked{"rm -r on '" + target + "' would delete " + *what,
                     "Name the specific files or directories to delete (for example rm -rf "
                     "./build)."};
    }
  }
  return std::nullopt;
}

// The script of `sh -c SCRIPT` (also -ec, -xc ...), if there is one.
std::optional<std::string> ShellScript(Words args) {
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
  return std::nullopt;
}

std::optional<Blocked> Check(std::string_view command, std::string_view home, int depth);

std::optional<Blocked> CheckSimple(const SimpleCommand& command, std::string_view home, int depth) {
  for (const std::string& file : command.output_files) {
    if (IsBlockDevice(file)) return BlockDeviceWrite("Redirecting output to " + file, file);
  }
  const Words words(command.words);
  const std::size_t start = CommandStart(words);
  if (start >= words.size()) return std::nullopt;
  const std::string_view name = BaseName(words[start]);
  const Words args = words.subspan(start + 1);

  if (name == "rm") return CheckRm(args, home);
  if (name.starts_with("mkfs") || name == "mke2fs" || name == "mkswap") {
    for (const std::string& arg : args) {
      if (arg.starts_with("/dev/")) {
        return Blocked{std::string(name) + " on " + arg + " would erase everything on it",
                       "Formatting a device is for the user to do by hand; ask them."};
      }
    }
  }
  if (name == "dd") {
    for (const std::string& arg : args) {
      if (arg.starts_with("of=") && IsBlockDevice(std::string_view(arg).substr(3))) {
        return BlockDeviceWrite("dd " + arg, arg.substr(3));
      }
    }
  }
  if (name == "tee") {
    for (const std::string& arg : args) {
      if (IsBlockDevice(arg)) return BlockDeviceWrite("tee " + arg, arg);
    }
  }
  std::optional<std::string> nested;
  if (name == "sh" || name == "bash" || name == "dash" || name == "zsh" || name == "ksh" ||
      name == "mksh") {
    nested = ShellScript(args);
  } else if (name == "su") {
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "-c" || args[i] == "--command") nested = args[i + 1];
    }
  } else if (name == "eval") {
    nested.emplace();
    for (const std::string& arg : args) nested->append(arg).append(" ");
  }
  if (nested && depth < kMaxNesting) return Check(*nested, home, depth + 1);
  return std::nullopt;
}

std::optional<Blocked> Check(std::string_view command, std::string_view home, int depth) {
  for (const SimpleCommand& simple : SplitCommands(command)) {
    if (auto blocked = CheckSimple(simple, home, depth)) return blocked;
  }
  // Substitutions the splitter leaves inside a word: in double quotes, in
  // here-documents (`echo "$(rm -rf /)"` runs rm all the same).
  if (depth >= kMaxNesting) return std::nullopt;
  for (const shell::Substitution& substitution : shell::FindSubstitutions(command)) {
    if (auto blocked = Check(substitution.body, home, depth + 1)) return blocked;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Blocked> CheckCommand(std::string_view command, std::string_view home_directory) {
  if (HasForkBomb(command)) {
    return Blocked{
        "this is a fork bomb, which multiplies processes until the machine stops "
        "responding",
        "Do not run it; if you need the text itself, write it to a file with "
        "file_write."};
  }
  return Check(command, home_directory, 0);
}

std::string BlockedMessage(const Blocked& blocked) {
  return "Command blocked: " + blocked.reason + ". " + blocked.instead;
}

}  // namespace ikigai::bash_tool
