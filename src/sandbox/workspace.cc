#include "sandbox/workspace.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ikigai::sandbox {
namespace {

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return {};
  return buf;
}

bool IsDir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Parent(const std::string& dir) {
  const auto slash = dir.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

// The first line of a small file, without its line end.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// `gitdir: PATH` in a .git file, resolved against its directory.
std::string GitDirFromFile(const std::string& git_file, const std::string& dir) {
  const std::string line = FirstLine(git_file);
  constexpr std::string_view kPrefix = "gitdir:";
  if (line.rfind(kPrefix, 0) != 0) return {};
  std::string target = line.substr(kPrefix.size());
  target.erase(0, target.find_first_not_of(" \t"));
  if (target.empty()) return {};
  if (target[0] != '/') target = Join(dir, target);
  return RealPath(target);
}

void AddUnique(std::vector<std::string>& list, const std::string& path) {
  if (!path.empty() && std::find(list.begin(), list.end(), path) == list.end()) {
    list.push_back(path);
  }
}

// Strictly below `root`.
bool Inside(const std::string& path, const std::string& root) {
  if (root == "/") return path.size() > 1 && path[0] == '/';
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         path[root.size()] == '/';
}

std::string WithoutTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// What git runs code from, in a git directory: hooks, and the config files
// that can name other hooks, filters, pagers (core.hooksPath, ...).
void AddGitDirProtection(std::vector<std::string>& paths, const std::string& git_dir) {
  for (const char* name : {"hooks", "config", "config.worktree"}) {
    AddUnique(paths, Join(git_dir, name));
  }
}

// Bounds on the walk below a git directory: a repository with thousands of
// submodules is protected up to here, and a loop of links cannot hold it.
constexpr int kMaxGitDirDepth = 8;
constexpr std::size_t kMaxNestedGitDirs = 2000;

// The directories in `dir`, symbolic links left out.
std::vector<std::string> Subdirectories(const std::string& dir) {
  std::vector<std::string> subdirs;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return subdirs;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    const std::string path = Join(dir, e->d_name);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) subdirs.push_back(path);
  }
  ::closedir(d);
  std::sort(subdirs.begin(), subdirs.end());
  return subdirs;
}

bool IsGitDir(const std::string& dir) {
  struct stat st {};
  return ::lstat(Join(dir, "HEAD").c_str(), &st) == 0;
}

void AddNestedGitDirs(const std::string& git_dir, int depth, std::vector<std::string>& paths,
                      std::size_t& found);

// A submodule's git directory is modules/NAME, and NAME may hold slashes:
// a directory without HEAD is a step of a name.
void AddModules(const std::string& dir, int depth, std::vector<std::string>& paths,
                std::size_t& found) {
  if (depth > kMaxGitDirDepth) return;
  for (const std::string& sub : Subdirectories(dir)) {
    if (found >= kMaxNestedGitDirs) return;
    if (IsGitDir(sub)) {
      ++found;
      AddGitDirProtection(paths, sub);
      AddNestedGitDirs(sub, depth + 1, paths, found);
    } else {
      AddModules(sub, depth + 1, paths, found);
    }
  }
}

// The git directories of a git directory's submodules (modules/, nested)
// and linked worktrees (worktrees/NAME, whose config.worktree git reads).
void AddNestedGitDirs(const std::string& git_dir, int depth, std::vector<std::string>& paths,
                      std::size_t& found) {
  if (depth > kMaxGitDirDepth) return;
  for (const std::string& worktree : Subdirectories(Join(git_dir, "worktrees"))) {
    if (found >= kMaxNestedGitDirs) return;
    ++found;
    AddGitDirProtection(paths, worktree);
  }
  AddModules(Join(git_dir, "modules"), depth, paths, found);
}

// What a git directory adds: itself writable when outside the workspace
// (unless it may not be), its hooks and config protected, and the git
// directories below it found at each check.
void AddGitDir(Settings& s, const std::string& git_dir, bool outside,
               const std::function<std::string(const std::string&)>& why_not) {
  auto writable = [&](const std::string& dir) {
    if (const std::string why = why_not(dir); !why.empty()) {
      AddUnique(s.refused, "the git directory " + dir + " is not writable: " + why);
    } else {
      AddUnique(s.extra_writable, dir);
    }
  };
  if (outside) writable(git_dir);
  AddGitDirProtection(s.protected_paths, git_dir);
  AddUnique(s.git_dirs, git_dir);
  // A worktree's git dir names the repository's common dir.
  const std::string common_file = Join(git_dir, "commondir");
  if (!IsFile(common_file)) return;
  std::string common = FirstLine(common_file);
  if (common.empty()) return;
  if (common[0] != '/') common = Join(git_dir, common);
  common = RealPath(common);
  if (common.empty()) return;
  writable(common);
  AddGitDirProtection(s.protected_paths, common);
  AddUnique(s.git_dirs, common);
}

}  // namespace

std::vector<std::string> ProtectedPaths(const Settings& settings) {
  std::vector<std::string> paths = settings.protected_paths;
  std::size_t found = 0;
  for (const auto& git_dir : settings.git_dirs) AddNestedGitDirs(git_dir, 0, paths, found);
  return paths;
}

std::string WhyNotWritable(const std::string& dir, const std::string& home,
                           const std::vector<std::string>& secrets) {
  if (dir.empty()) return "";
  if (dir == "/") return "it is /";
  const std::string homes[] = {WithoutTrailingSlashes(home), RealPath(home)};
  for (const auto& h : homes) {
    if (h.empty() || h == "/") continue;
    if (dir == h) return "it is your home directory";
    if (Inside(h, dir)) return "it holds your home directory";
  }
  for (const auto& secret : secrets) {
    for (const std::string& s : {secret, RealPath(secret)}) {
      if (s.empty()) continue;
      if (s == dir || Inside(s, dir)) return "it holds " + secret + ", which tools may not read";
      if (Inside(dir, s)) return "it lies in " + secret + ", which tools may not read";
    }
  }
  return "";
}

std::string TempDirectory(const EnvLookup& env) {
  const std::string tmp = env("TMPDIR").value_or("");
  if (tmp.empty()) return "/tmp";
  if (tmp[0] != '/') return tmp;  // Sandbox::Create says what is wrong with it
  const std::string home = env("HOME").value_or("");
  const std::string real = RealPath(tmp);
  const std::string why = WhyNotWritable(real.empty() ? WithoutTrailingSlashes(tmp) : real, home,
                                         DefaultSecrets(RealPath(home)));
  return why.empty() ? tmp : "/tmp";
}

EnvLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::vector<std::string> DefaultSecrets(const std::string& home) {
  std::vector<std::string> secrets;
  if (home.empty() || home == "/") return secrets;
  for (const char* name :
       {".ssh", ".aws", ".gnupg",
        // ikigai's keys, conversations and history; its
        // tools (~/.ikigai/tools) stay readable.
        ".ikigai/config.json", ".ikigai/sessions", ".ikigai/history", ".config/gh", ".netrc",
        ".docker", ".kube", ".password-store", ".git-credentials", ".config/gcloud", ".azure",
        ".npmrc", ".pypirc", ".cargo/credentials.toml", ".config/hub", ".local/share/keyrings",
        ".pki", ".vault-token", ".terraform.d/credentials.tfrc.json", ".mozilla",
        ".config/google-chrome", ".config/chromium"}) {
    secrets.push_back(home + "/" + name);
  }
  return secrets;
}

Result<Settings, std::string> DefaultSettings(const std::string& cwd, const EnvLookup& env,
                                              const std::vector<std::string>& writable_roots,
                                              bool network) {
  if (cwd.empty() || cwd[0] != '/') return Err("not an absolute directory: " + cwd);
  const std::string start = RealPath(cwd);
  if (start.empty() || !IsDir(start)) return Err("not an existing directory: " + cwd);
  const std::string home_env = env("HOME").value_or("");
  const std::string home = home_env.empty() ? std::string() : RealPath(home_env);
  const std::vector<std::string> secrets = DefaultSecrets(home);
  auto why_not = [&](const std::string& dir) { return WhyNotWritable(dir, home_env, secrets); };

  Settings s;
  s.network = network;
  // Walk up to the first .git.
  std::string top, git_dir;
  for (std::string dir = start;; dir = Parent(dir)) {
    const std::string dot_git = Join(dir, ".git");
    if (IsDir(dot_git)) {
      top = dir;
      git_dir = RealPath(dot_git);
      break;
    }
    if (IsFile(dot_git)) {
      top = dir;
      git_dir = GitDirFromFile(dot_git, dir);
      break;
    }
    if (dir == "/") break;
  }
  if (!top.empty() && why_not(top).empty()) {
    s.workspace = top;
    if (!git_dir.empty()) {
      const bool inside = git_dir.rfind(top + "/", 0) == 0;
      AddGitDir(s, git_dir, !inside, why_not);
    }
  } else if (const std::string why = why_not(start); why.empty()) {
    s.workspace = start;
  } else {
    s.refused.push_back("the working directory " + start + " is not writable: " + why +
                        "; only the temporary directories are");
  }
  if (!s.workspace.empty()) {
    AddUnique(s.protected_paths, Join(s.workspace, ".ikigai"));
    // Project tools and config load from the start directory's .ikigai/.
    if (Inside(start, s.workspace)) AddUnique(s.protected_paths, Join(start, ".ikigai"));
  }

  for (const auto& root : writable_roots) {
    const std::string real = RealPath(root);
    if (real.empty()) continue;  // missing: left out
    if (const std::string why = why_not(real); !why.empty()) {
      AddUnique(s.refused, "sandbox.writable_roots: " + root + " is left out: " + why);
    } else {
      AddUnique(s.extra_writable, real);
    }
  }
  s.temp_dir = TempDirectory(env);
  if (const std::string tmp = env("TMPDIR").value_or(""); !tmp.empty() && s.temp_dir != tmp) {
    const std::string real = RealPath(tmp);
    s.refused.push_back("TMPDIR=" + tmp + " is not writable: " +
                        why_not(real.empty() ? WithoutTrailingSlashes(tmp) : real) +
                        "; tools get /tmp instead");
  }
  s.secrets = secrets;
  const std::string runtime = env("XDG_RUNTIME_DIR").value_or("");
  s.runtime_dir = runtime.empty() ? "/run/user/" + std::to_string(::getuid()) : runtime;
  return s;
}

}  // namespace ikigai::sandbox
