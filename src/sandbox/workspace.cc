#include "sandbox/workspace.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
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

// What a git directory adds: itself writable when outside the workspace,
// its hooks and config protected.
void AddGitDir(Settings& s, const std::string& git_dir, bool outside) {
  if (outside) AddUnique(s.extra_writable, git_dir);
  AddUnique(s.protected_paths, Join(git_dir, "hooks"));
  AddUnique(s.protected_paths, Join(git_dir, "config"));
  // A worktree's git dir names the repository's common dir.
  const std::string common_file = Join(git_dir, "commondir");
  if (!IsFile(common_file)) return;
  std::string common = FirstLine(common_file);
  if (common.empty()) return;
  if (common[0] != '/') common = Join(git_dir, common);
  common = RealPath(common);
  if (common.empty()) return;
  AddUnique(s.extra_writable, common);
  AddUnique(s.protected_paths, Join(common, "hooks"));
  AddUnique(s.protected_paths, Join(common, "config"));
}

}  // namespace

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
  auto refused = [&](const std::string& dir) {
    return dir == "/" || (!home.empty() && dir == home);
  };

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
  if (!top.empty() && !refused(top)) {
    s.workspace = top;
    if (!git_dir.empty()) {
      const bool inside = git_dir.rfind(top + "/", 0) == 0;
      AddGitDir(s, git_dir, !inside);
    }
  } else if (!refused(start)) {
    s.workspace = start;
  }
  if (!s.workspace.empty()) AddUnique(s.protected_paths, Join(s.workspace, ".ikigai"));

  for (const auto& root : writable_roots) AddUnique(s.extra_writable, RealPath(root));
  const std::string tmp = env("TMPDIR").value_or("");
  s.temp_dir = tmp.empty() ? "/tmp" : tmp;
  s.secrets = DefaultSecrets(home);
  const std::string runtime = env("XDG_RUNTIME_DIR").value_or("");
  s.runtime_dir = runtime.empty() ? "/run/user/" + std::to_string(::getuid()) : runtime;
  return s;
}

}  // namespace ikigai::sandbox
