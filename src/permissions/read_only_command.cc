#include "permissions/read_only_command.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "base/shell_words.h"

namespace ikigai::permissions {
namespace {

using Words = std::vector<std::string>;

// Programs that only read, whatever their arguments.
constexpr std::string_view kReaders[] = {
    "ls",   "cat",      "head",    "tail",     "wc",       "grep", "egrep",  "fgrep",
    "rg",   "stat",     "du",      "df",       "pwd",      "echo", "printf", "which",
    "type", "whoami",   "id",      "uname",    "cut",      "tr",   "diff",   "cmp",
    "comm", "basename", "dirname", "realpath", "readlink", "nl",   "true",   "jq"};

constexpr std::string_view kGitReaders[] = {"status",    "diff",     "log",     "show",
                                            "rev-parse", "ls-files", "blame",   "grep",
                                            "describe",  "shortlog", "cat-file"};

bool StartsWithAny(const Words& words, std::initializer_list<std::string_view> prefixes) {
  for (const std::string& w : words) {
    for (std::string_view p : prefixes) {
      if (w.starts_with(p)) return true;
    }
  }
  return false;
}

// Whether `word` is the long option `name` or an abbreviation of it, with
// or without "=VALUE": GNU getopt and git take any unambiguous prefix, so
// `--out=f` is `--output=f`.
bool IsLongOption(std::string_view word, std::string_view name) {
  if (!word.starts_with("--") || word.size() == 2) return false;
  word.remove_prefix(2);
  word = word.substr(0, word.find('='));
  return name.starts_with(word);
}

bool AnyLongOption(const Words& words, std::initializer_list<std::string_view> names) {
  for (const std::string& w : words) {
    for (std::string_view name : names) {
      if (IsLongOption(w, name)) return true;
    }
  }
  return false;
}

// Whether a cluster of short options (`-uo`) holds `letter` before an
// option that takes the rest of the word as its value (`-k1o` is -k "1o").
bool AnyShortOption(const Words& words, char letter, std::string_view takes_value) {
  for (const std::string& w : words) {
    if (w.size() < 2 || w[0] != '-' || w[1] == '-') continue;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (w[i] == letter) return true;
      if (takes_value.find(w[i]) != std::string_view::npos) break;
    }
  }
  return false;
}

bool FindReadsOnly(const Words& w) {
  return !StartsWithAny(w, {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls"});
}

// sort writes with -o/--output and runs a program with --compress-program.
bool SortReadsOnly(const Words& w) {
  const Words args(w.begin() + 1, w.end());
  return !AnyShortOption(args, 'o', "kStT") && !AnyLongOption(args, {"output", "compress-program"});
}

// Options of git's reading subcommands that write a file (--output) or run
// a program: an external diff, textconv and filter drivers, a pager.
bool GitOptionsReadOnly(const std::string& sub, const Words& rest) {
  if (AnyLongOption(rest, {"output", "ext-diff", "textconv", "filters", "open-files-in-pager"}))
    return false;
  if (sub == "grep" && AnyShortOption(rest, 'O', "efABCm")) return false;
  return true;
}

bool GitReadsOnly(const Words& w) {
  std::size_t i = 1;
  while (i < w.size() && w[i].starts_with("-")) {
    // Only options that change nothing about what runs: -C/--git-dir point
    // at another repository (whose config may name a pager, an fsmonitor
    // or a diff driver), -c/--config-env set such config, --exec-path
    // chooses the programs, -p starts a pager.
    const std::string& option = w[i];
    if (option != "--no-pager" && option != "-P" && option != "--no-replace-objects" &&
        option != "--literal-pathspecs" && option != "--glob-pathspecs" &&
        option != "--noglob-pathspecs" && option != "--icase-pathspecs" &&
        option != "--no-optional-locks") {
      return false;
    }
    ++i;
  }
  if (i >= w.size()) return false;
  const std::string& sub = w[i];
  const Words rest(w.begin() + static_cast<long>(i) + 1, w.end());
  if (std::find(std::begin(kGitReaders), std::end(kGitReaders), sub) != std::end(kGitReaders)) {
    return GitOptionsReadOnly(sub, rest);
  }
  if (sub == "branch" || sub == "tag") {  // listing only
    return std::all_of(rest.begin(), rest.end(), [](const std::string& a) {
      return a == "-a" || a == "-r" || a == "-v" || a == "-vv" || a == "--list" || a == "-l" ||
             a == "--all" || a == "--show-current";
    });
  }
  if (sub == "remote") return rest.empty() || (rest.size() == 1 && rest[0] == "-v");
  if (sub == "stash") return rest.size() == 1 && rest[0] == "list";
  if (sub == "config") {
    return !rest.empty() && (rest[0] == "--get" || rest[0] == "--list" || rest[0] == "-l") &&
           !AnyShortOption(rest, 'e', "") &&
           !AnyLongOption(rest, {"edit", "add", "unset", "unset-all", "replace-all",
                                 "rename-section", "remove-section"});
  }
  return false;
}

bool SimpleReadsOnly(const shell::SimpleCommand& command) {
  // Descriptor duplications (2>&1, >&2) are not in output_files: every
  // target there is a file opened for writing, `> 123` and `> -` included.
  for (const std::string& target : command.output_files) {
    if (target != "/dev/null") return false;
  }
  const Words& w = command.words;
  if (w.empty()) return true;  // only a harmless redirection
  const std::string& program = w[0];
  if (program.find('=') != std::string::npos) return false;  // FOO=1 cmd: an environment change
  if (program == "find") return FindReadsOnly(w);
  if (program == "git") return GitReadsOnly(w);
  if (program == "sort") return SortReadsOnly(w);
  if (program == "env") return w.size() == 1;  // printing only; `env CMD` runs CMD
  // fd runs a program with -x/-X (also in a cluster, -Hx), --exec, --exec-batch.
  if (program == "fd") {
    const Words args(w.begin() + 1, w.end());
    return !AnyShortOption(args, 'x', "deEtcjS") && !AnyShortOption(args, 'X', "deEtcjS") &&
           !StartsWithAny(args, {"--exec"});
  }
  if (program == "rg" && StartsWithAny(w, {"--pre"})) return false;  // a preprocessor program
  // printf -v assigns a variable, and an array subscript in its name is
  // evaluated: printf -v 'a[$(cmd)]' runs cmd.
  if (program == "printf" && w.size() > 1 && w[1].starts_with("-v")) return false;
  return std::find(std::begin(kReaders), std::end(kReaders), program) != std::end(kReaders);
}

}  // namespace

bool IsReadOnlyCommand(std::string_view command) {
  if (shell::HasSubstitution(command)) return false;
  const auto commands = shell::SplitCommands(command);
  if (commands.empty()) return false;
  return std::all_of(commands.begin(), commands.end(), SimpleReadsOnly);
}

}  // namespace ikigai::permissions
