#include "search/ignore_rules.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace ikigai::search {
namespace {

// git's is_glob_special(): a pattern without these is compared literally.
bool HasWildcard(std::string_view s) { return s.find_first_of("*?[\\") != std::string_view::npos; }

// git's trim_trailing_spaces(): drops the trailing run of spaces unless the
// space is escaped by a backslash (which stays in the pattern).
std::string_view TrimTrailingSpaces(std::string_view line) {
  std::size_t end = line.size();
  std::size_t last_space = std::string_view::npos;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ') {
      if (last_space == std::string_view::npos) last_space = i;
      continue;
    }
    if (line[i] == '\\') {
      if (++i == line.size()) return line;  // a trailing backslash: keep everything
    }
    last_space = std::string_view::npos;
  }
  if (last_space != std::string_view::npos) end = last_space;
  return line.substr(0, end);
}

// Reads a regular file relative to `dir_fd`; nullopt when it is missing or
// not a regular file (a FIFO named .gitignore must not block the walk).
std::optional<std::string> ReadFileAt(int dir_fd, const char* name, bool no_follow) {
  const int fd =
      ::openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (no_follow ? O_NOFOLLOW : 0));
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    text.emplace();
    char buf[16384];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      text->append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return text;
}

std::string_view TrimEnd(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.remove_suffix(1);
  }
  return s;
}

// The info/exclude of the repository whose top is open at `dir_fd`. `.git`
// is a directory, or a file "gitdir: <path>" (worktrees, submodules) whose
// git directory may name a shared one in its `commondir` file.
std::optional<std::string> ReadGitExclude(int dir_fd) {
  if (auto text = ReadFileAt(dir_fd, ".git/info/exclude", false)) return text;
  const auto git_file = ReadFileAt(dir_fd, ".git", false);
  constexpr std::string_view kGitDir = "gitdir: ";
  if (!git_file || !std::string_view(*git_file).starts_with(kGitDir)) return std::nullopt;
  const std::string git_dir(TrimEnd(std::string_view(*git_file).substr(kGitDir.size())));
  const int git_fd = ::openat(dir_fd, git_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (git_fd < 0) return std::nullopt;
  std::string common = ".";
  if (auto c = ReadFileAt(git_fd, "commondir", false)) common = std::string(TrimEnd(*c));
  auto text = ReadFileAt(git_fd, (common + "/info/exclude").c_str(), false);
  ::close(git_fd);
  return text;
}

}  // namespace

std::optional<IgnoreFile::Rule> IgnoreFile::ParseLine(std::string_view line) {
  if (line.empty() || line[0] == '#') return std::nullopt;
  line = TrimTrailingSpaces(line);
  Rule rule;
  if (!line.empty() && line[0] == '!') {
    rule.negated = true;
    line.remove_prefix(1);
  }
  if (!line.empty() && line.back() == '/') {
    rule.directory_only = true;
    line.remove_suffix(1);
  }
  if (line.empty()) return std::nullopt;
  bool by_name = line.find('/') == std::string_view::npos;
  if (!by_name) {
    // Anchored: matched against the whole path below the base.
    if (line[0] == '/') line.remove_prefix(1);
    // An empty segment ("//x", "a//b") can never match a path.
    if (line.empty() || line[0] == '/' || line.find("//") != std::string_view::npos) {
      return std::nullopt;
    }
    // "**/name" is a name at any depth, like "name".
    if (line.starts_with("**/") && line.find('/', 3) == std::string_view::npos) {
      line.remove_prefix(3);
      by_name = true;
    }
  }
  if (!HasWildcard(line)) {
    rule.kind = by_name ? Rule::Kind::kName : Rule::Kind::kPath;
    rule.text = line;
  } else if (by_name && line[0] == '*' && !HasWildcard(line.substr(1))) {
    rule.kind = Rule::Kind::kNameSuffix;
    rule.text = line.substr(1);
  } else {
    auto glob = GlobPattern::Compile(line, {.dot_is_special = false});
    if (!glob) return std::nullopt;  // malformed: matches nothing, as in git
    rule.kind = by_name ? Rule::Kind::kNameGlob : Rule::Kind::kPathGlob;
    rule.glob.emplace(std::move(*glob));
  }
  // A pattern ending with a literal byte (not a wildcard, a bracket or an
  // escaped character) only matches subjects ending with it.
  const char c = line.back();
  const bool escaped = line.size() >= 2 && line[line.size() - 2] == '\\';
  if (c != '*' && c != '?' && c != ']' && c != '\\' && !escaped) rule.last = c;
  return rule;
}

IgnoreFile IgnoreFile::Parse(std::string base, std::string_view text) {
  IgnoreFile file;
  file.base_ = std::move(base);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.empty() || line[0] == '#') continue;
    if (line.back() == '\r') line.remove_suffix(1);
    if (auto rule = ParseLine(line)) file.rules_.push_back(std::move(*rule));
  }
  return file;
}

IgnoreVerdict IgnoreFile::Check(std::string_view path, bool is_dir) const {
  const std::string_view rel = base_.empty() ? path : path.substr(base_.size() + 1);
  const std::string_view name = rel.substr(rel.rfind('/') + 1);
  for (std::size_t i = rules_.size(); i-- > 0;) {
    const Rule& rule = rules_[i];
    if (rule.directory_only && !is_dir) continue;
    if (rule.last != 0) {
      const bool on_path = rule.kind == Rule::Kind::kPath || rule.kind == Rule::Kind::kPathGlob;
      if ((on_path ? rel : name).back() != rule.last) continue;
    }
    bool match = false;
    switch (rule.kind) {
      case Rule::Kind::kName:
        match = name == rule.text;
        break;
      case Rule::Kind::kNameSuffix:
        match = name.ends_with(rule.text);
        break;
      case Rule::Kind::kNameGlob:
        match = rule.glob->Matches(name);
        break;
      case Rule::Kind::kPath:
        match = rel == rule.text;
        break;
      case Rule::Kind::kPathGlob:
        match = rule.glob->Matches(rel);
        break;
    }
    if (match) return rule.negated ? IgnoreVerdict::kKeep : IgnoreVerdict::kIgnore;
  }
  return IgnoreVerdict::kNone;
}

std::shared_ptr<const IgnoreChain> IgnoreChain::Push(std::shared_ptr<const IgnoreChain> parent,
                                                     Files files) {
  auto chain = std::make_shared<IgnoreChain>();
  chain->in_work_tree_ = (parent && parent->in_work_tree_) || files.repository_top;
  chain->has_rules_ = (parent && parent->has_rules_) || (files.ignore && !files.ignore->empty()) ||
                      (files.gitignore && !files.gitignore->empty()) ||
                      (files.git_exclude && !files.git_exclude->empty());
  chain->parent_ = std::move(parent);
  chain->files_ = std::move(files);
  return chain;
}

std::shared_ptr<const IgnoreChain> IgnoreChain::Enter(std::shared_ptr<const IgnoreChain> parent,
                                                      int dir_fd, std::string_view base,
                                                      IgnoreFilesPresent present) {
  if (!present.any()) return parent;
  const bool in_work_tree = (parent && parent->in_work_tree_) || present.git;
  Files files;
  auto read = [&](const char* name, bool no_follow) -> std::optional<IgnoreFile> {
    auto text = ReadFileAt(dir_fd, name, no_follow);
    if (!text) return std::nullopt;
    IgnoreFile file = IgnoreFile::Parse(std::string(base), *text);
    if (file.empty()) return std::nullopt;
    return file;
  };
  if (present.ignore) files.ignore = read(".ignore", false);
  // git (2.32 and later) does not follow a .gitignore that is a symbolic link.
  if (present.gitignore && in_work_tree) files.gitignore = read(".gitignore", true);
  if (present.git) {
    files.repository_top = true;
    if (auto text = ReadGitExclude(dir_fd)) {
      IgnoreFile file = IgnoreFile::Parse(std::string(base), *text);
      if (!file.empty()) files.git_exclude = std::move(file);
    }
  }
  if (!files.repository_top && !files.ignore && !files.gitignore) return parent;
  return Push(std::move(parent), std::move(files));
}

bool IgnoreChain::IsIgnored(std::string_view path, bool is_dir) const {
  for (const IgnoreChain* c = this; c != nullptr; c = c->parent_.get()) {
    if (!c->files_.ignore) continue;
    const IgnoreVerdict v = c->files_.ignore->Check(path, is_dir);
    if (v != IgnoreVerdict::kNone) return v == IgnoreVerdict::kIgnore;
  }
  for (const IgnoreChain* c = this; c != nullptr && c->in_work_tree_; c = c->parent_.get()) {
    if (c->files_.gitignore) {
      const IgnoreVerdict v = c->files_.gitignore->Check(path, is_dir);
      if (v != IgnoreVerdict::kNone) return v == IgnoreVerdict::kIgnore;
    }
    if (c->files_.repository_top) {
      const auto& exclude = c->files_.git_exclude;
      return exclude && exclude->Check(path, is_dir) == IgnoreVerdict::kIgnore;
    }
  }
  return false;
}

std::optional<std::string> FindWorkTreeTop(const std::string& dir) {
  std::string d = dir;
  for (;;) {
    struct stat st {};
    if (::stat((d == "/" ? std::string("/.git") : d + "/.git").c_str(), &st) == 0) return d;
    if (d == "/" || d.empty()) return std::nullopt;
    const std::size_t slash = d.rfind('/');
    d = slash == 0 || slash == std::string::npos ? std::string("/") : d.substr(0, slash);
  }
}

}  // namespace ikigai::search
