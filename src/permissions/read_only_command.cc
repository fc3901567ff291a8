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

bool FindReadsOnly(const Words& w) {
  return !StartsWithAny(w, {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls"});
}

bool GitReadsOnly(const Words& w) {
  std::size_t i = 1;
  while (i < w.size() && w[i].starts_with("-")) {
    if (w[i] == "-C" || w[i] == "-c") return false;  // another repository, or config overrides
    ++i;
  }
  if (i >= w.size()) return false;
  const std::string& sub = w[i];
  const Words rest(w.begin() + static_cast<long>(i) + 1, w.end());
  if (std::find(std::begin(kGitReaders), std::end(kGitReaders), sub) != std::end(kGitReaders)) {
    return !StartsWithAny(rest, {"--output", "--ext-diff"});
  }
  if (sub == "branch" || sub == "tag") {  // listing only
    return std::all_of(rest.begin(), rest.end(), [](const std::string& a) {
      return a == "-a" || a == "-r" || a == "-v" || a == "-vv" || a == "--list" || a == "-l" ||
             a == "--all" || a == "--show-current";
    });
  }
  if (sub == "remote") return rest.empty() || (rest.size() == 1 && rest[0] == "-v");
  if (sub == "stash") return rest.size() == 1 && rest[0] == "list";
  if (sub == "config")
    return !rest.empty() && (rest[0] == "--get" || rest[0] == "--list" || rest[0] == "-l");
  return false;
}

bool SimpleReadsOnly(const shell::SimpleCommand& command) {
  for (const std::string& target : command.output_files) {
    const bool descriptor =
        !target.empty() && std::all_of(target.begin(), target.end(),
                                       [](char c) { return (c >= '0' && c <= '9') || c == '-'; });
    if (!descriptor && target != "/dev/null") return false;
  }
  const Words& w = command.words;
  if (w.empty()) return true;  // only a harmless redirection
  const std::string& program = w[0];
  if (program.find('=') != std::string::npos) return false;  // FOO=1 cmd: an environment change
  if (program == "find") return FindReadsOnly(w);
  if (program == "git") return GitReadsOnly(w);
  if (program == "sort") return !StartsWithAny(Words(w.begin() + 1, w.end()), {"-o", "--output"});
  if (program == "env") return w.size() == 1;  // printing only; `env CMD` runs CMD
  if (program == "fd") return !StartsWithAny(w, {"-x", "-X", "--exec"});
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
