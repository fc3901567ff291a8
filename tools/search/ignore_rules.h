// Ignore rules: the patterns of one ignore file, and the chain of ignore
// files in force in a directory.
//
// One IgnoreFile holds the rules of a .gitignore, .ignore or
// .git/info/exclude, relative to the directory it governs (its base). Rules
// follow gitignore(5) as git itself reads them (dir.c): a UTF-8 BOM and a
// CR before the newline are dropped; blank lines and lines starting with `#`
// are skipped; trailing spaces are trimmed unless escaped (`\ `); `!`
// negates, `\!` and `\#` are literal; one trailing `/` matches directories
// only; a pattern with a '/' at its start or middle is anchored to the base
// (and matched against the whole path below it), otherwise it matches the
// name at any depth below the base; `**` as in glob_pattern.h; within a file
// the last matching rule wins. A malformed pattern (an unclosed `[`, a
// trailing `\`) matches nothing, as in git.
//
// An IgnoreChain is one directory's link in a chain towards the walk's top:
// its own .ignore and .gitignore, and for a repository's top directory that
// repository's info/exclude. Verdicts, in this order (ripgrep's):
//   1. .ignore files, deepest first: the first file with a matching rule
//      decides;
//   2. .gitignore files, deepest first, but only up to the nearest
//      repository top (a nested repository does not inherit its parent
//      repository's .gitignore), then that repository's info/exclude;
//   3. otherwise not ignored.
// .gitignore files are read only inside a git work tree (a directory with a
// `.git` directory or file, or below one). The global core.excludesFile is
// never read: what is ignored must not depend on the user's git config.
//
// Paths given to the checks are relative to one common directory, the
// chain's anchor (the repository top, or the walk root outside git),
// '/'-separated, without "./"; bases are relative to the same anchor.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/glob_pattern.h"

namespace ikigai::search {

enum class IgnoreVerdict { kNone, kIgnore, kKeep };

class IgnoreFile {
 public:
  // `base` is the governed directory relative to the anchor ("" for the
  // anchor itself); `text` is the file's contents.
  static IgnoreFile Parse(std::string base, std::string_view text);

  // `path` is relative to the anchor and lies strictly below base().
  IgnoreVerdict Check(std::string_view path, bool is_dir) const;

  bool empty() const { return rules_.empty(); }
  const std::string& base() const { return base_; }

 private:
  struct Rule {
    enum class Kind {
      kName,        // the base name equals `text`
      kNameSuffix,  // the base name ends with `text` (git's "*literal")
      kNameGlob,    // `glob` matches the base name
      kPath,        // the path below the base equals `text`
      kPathGlob,    // `glob` matches the path below the base
    };
    Kind kind = Kind::kName;
    bool negated = false;
    bool directory_only = false;
    // The byte the subject must end with, or 0: a test that spares most
    // comparisons (a rule list is checked for every entry).
    char last = 0;
    std::string text;
    std::optional<GlobPattern> glob;
  };
  static std::optional<Rule> ParseLine(std::string_view line);

  std::string base_;
  std::vector<Rule> rules_;
};

// Which ignore-related names a directory's listing holds.
struct IgnoreFilesPresent {
  bool gitignore = false;  // .gitignore
  bool ignore = false;     // .ignore
  bool git = false;        // .git (directory or file): a repository's top
  bool any() const { return gitignore || ignore || git; }
};

class IgnoreChain {
 public:
  // The chain of the directory open at `dir_fd`, whose path relative to the
  // anchor is `base`, given its parent directory's chain (null: none).
  // Reads the directory's ignore files that `present` names; .gitignore only
  // inside a work tree; info/exclude when the directory is a repository's
  // top (`.git` may be a directory or a "gitdir:" file, as in worktrees and
  // submodules). Returns `parent` itself when the directory adds nothing.
  static std::shared_ptr<const IgnoreChain> Enter(std::shared_ptr<const IgnoreChain> parent,
                                                  int dir_fd, std::string_view base,
                                                  IgnoreFilesPresent present);

  // For tests and callers that already hold the texts.
  struct Files {
    std::optional<IgnoreFile> ignore;
    std::optional<IgnoreFile> gitignore;
    std::optional<IgnoreFile> git_exclude;  // a repository top's info/exclude
    bool repository_top = false;
  };
  static std::shared_ptr<const IgnoreChain> Push(std::shared_ptr<const IgnoreChain> parent,
                                                 Files files);

  // `path` is relative to the anchor and lies below this chain's directory.
  bool IsIgnored(std::string_view path, bool is_dir) const;

  bool in_work_tree() const { return in_work_tree_; }
  // Whether any file in the chain holds a rule (else nothing is ignored).
  bool has_rules() const { return has_rules_; }

 private:
  std::shared_ptr<const IgnoreChain> parent_;
  Files files_;
  bool in_work_tree_ = false;
  bool has_rules_ = false;
};

// The top of the git work tree holding the absolute, symlink-free directory
// `dir` (the nearest directory, `dir` itself included, with a `.git`
// directory or file), or nullopt outside any work tree.
std::optional<std::string> FindWorkTreeTop(const std::string& dir);

}  // namespace ikigai::search
