#include "sandbox/workspace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "testing/tool_runner.h"

namespace ikigai::sandbox {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(WorkspaceTest, GitDirectoryAboveTheStartIsTheWorkspace) {
  TempDir dir;
  const std::string repo = fs::canonical(dir.path()).string() + "/repo";
  fs::create_directories(repo + "/.git/hooks");
  fs::create_directories(repo + "/src/deep");
  auto s = DefaultSettings(repo + "/src/deep", Env({{"HOME", dir / "home"}}));
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->workspace, repo);
  EXPECT_TRUE(s->extra_writable.empty());
  EXPECT_TRUE(Has(s->protected_paths, repo + "/.git/hooks"));
  EXPECT_TRUE(Has(s->protected_paths, repo + "/.git/config"));
  EXPECT_TRUE(Has(s->protected_paths, repo + "/.ikigai"));
  EXPECT_EQ(s->temp_dir, "/tmp");
}

TEST(WorkspaceTest, WorktreeGitFileAddsItsGitDirAndCommonDir) {
  TempDir dir;
  const std::string base = fs::canonical(dir.path()).string();
  const std::string main_git = base + "/main/.git";
  const std::string wt_git = main_git + "/worktrees/wt";
  fs::create_directories(wt_git);
  fs::create_directories(main_git + "/hooks");
  fs::create_directories(base + "/wt/sub");
  testing::WriteFile(base + "/wt/.git", "gitdir: " + wt_git + "\n");
  testing::WriteFile(wt_git + "/commondir", "../..\n");
  auto s = DefaultSettings(base + "/wt/sub", Env({}));
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->workspace, base + "/wt");
  EXPECT_TRUE(Has(s->extra_writable, wt_git));
  EXPECT_TRUE(Has(s->extra_writable, main_git));
  EXPECT_TRUE(Has(s->protected_paths, main_git + "/hooks"));
  EXPECT_TRUE(Has(s->protected_paths, main_git + "/config"));
}

TEST(WorkspaceTest, RelativeGitDirInAGitFileIsResolvedAgainstItsDirectory) {
  TempDir dir;
  const std::string base = fs::canonical(dir.path()).string();
  fs::create_directories(base + "/super/.git/modules/sub");
  fs::create_directories(base + "/super/sub");
  testing::WriteFile(base + "/super/sub/.git", "gitdir: ../.git/modules/sub\n");
  auto s = DefaultSettings(base + "/super/sub", Env({}));
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->workspace, base + "/super/sub");
  EXPECT_TRUE(Has(s->extra_writable, base + "/super/.git/modules/sub"));
  EXPECT_TRUE(Has(s->protected_paths, base + "/super/.git/modules/sub/hooks"));
}

TEST(WorkspaceTest, WithoutARepositoryTheStartDirectory) {
  TempDir dir;
  const std::string base = fs::canonical(dir.path()).string();
  fs::create_directories(base + "/plain");
  auto s = DefaultSettings(base + "/plain", Env({{"TMPDIR", "/var/tmp"}}));
  ASSERT_TRUE(s.ok()) << s.error();
  // (unless the temp dir itself is in a repository)
  if (!fs::exists(base + "/.git")) {
    EXPECT_EQ(s->workspace.rfind(base, 0), 0u) << s->workspace;
  }
  EXPECT_EQ(s->temp_dir, "/var/tmp");
}

TEST(WorkspaceTest, RootAndHomeAreNeverTheWorkspace) {
  TempDir dir;
  const std::string home = fs::canonical(dir.path()).string();
  auto at_root = DefaultSettings("/", Env({{"HOME", home}}));
  ASSERT_TRUE(at_root.ok());
  EXPECT_EQ(at_root->workspace, "");
  auto at_home = DefaultSettings(home, Env({{"HOME", home}}));
  ASSERT_TRUE(at_home.ok());
  EXPECT_EQ(at_home->workspace, "");
  // A dotfiles repository in $HOME: a plain folder below it is its own workspace.
  fs::create_directories(home + "/.git");
  fs::create_directories(home + "/notes");
  auto below = DefaultSettings(home + "/notes", Env({{"HOME", home}}));
  ASSERT_TRUE(below.ok());
  EXPECT_EQ(below->workspace, home + "/notes");
  EXPECT_TRUE(Has(below->secrets, home + "/.ssh"));
  EXPECT_TRUE(Has(below->secrets, home + "/.ikigai/config.json"));
  EXPECT_TRUE(Has(below->secrets, home + "/.ikigai/sessions"));
  EXPECT_FALSE(Has(below->secrets, home + "/.ikigai")) << "user tools live in ~/.ikigai/tools";
}

TEST(WorkspaceTest, RuntimeDirAndWritableRoots) {
  TempDir dir;
  const std::string base = fs::canonical(dir.path()).string();
  fs::create_directories(base + "/extra");
  auto s = DefaultSettings(base, Env({{"XDG_RUNTIME_DIR", "/run/user/1234"}}),
                           {base + "/extra", base + "/missing"}, true);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->runtime_dir, "/run/user/1234");
  EXPECT_TRUE(Has(s->extra_writable, base + "/extra"));
  EXPECT_FALSE(Has(s->extra_writable, base + "/missing"));
  EXPECT_TRUE(s->network);
  auto no_xdg = DefaultSettings(base, Env({}));
  ASSERT_TRUE(no_xdg.ok());
  EXPECT_EQ(no_xdg->runtime_dir, "/run/user/" + std::to_string(::getuid()));
}

bool Mentions(const std::vector<std::string>& lines, const std::string& a, const std::string& b) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
    return line.find(a) != std::string::npos && line.find(b) != std::string::npos;
  });
}

// Started above $HOME (in /home, say), the workspace would hold the home
// directory: ~/.bashrc writable, ~/.ssh readable. It is left empty, and the
// secrets stay listed.
TEST(WorkspaceTest, DirectoriesAboveHomeAreNeverTheWorkspace) {
  TempDir dir;
  const std::string base = fs::canonical(dir.path()).string();
  const std::string home = base + "/home/user";
  fs::create_directories(home + "/.ssh");
  for (const std::string& start : {base + "/home", base}) {
    auto s = DefaultSettings(start, Env({{"HOME", home}}));
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(s->workspace, "") << start;
    EXPECT_TRUE(Has(s->secrets, home + "/.ssh")) << start;
    EXPECT_TRUE(Mentions(s->refused, start, "holds your home directory")) << start;
  }
  // A repository above $HOME is not the workspace either; a folder beside
  // $HOME inside it is.
  fs::create_directories(base + "/home/.git");
  fs::create_directories(base + "/home/other");
  auto beside = DefaultSettings(base + "/home/other", Env({{"HOME", home}}));
  ASSERT_TRUE(beside.ok());
  EXPECT_EQ(beside->workspace, base + "/home/other");
  EXPECT_TRUE(beside->refused.empty());
  // The same through a HOME spelled with a trailing slash, and through a
  // link to it.
  fs::create_symlink(home, base + "/home-link");
  for (const std::string& spelled : {home + "/", base + "/home-link"}) {
    auto s = DefaultSettings(base + "/home", Env({{"HOME", spelled}}));
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->workspace, "") << spelled;
  }
}

// TMPDIR is writable: a TMPDIR that is $HOME, above it or in a secret gives
// way to /tmp, and says so.
TEST(WorkspaceTest, ATmpdirThatIsOrHoldsHomeGivesWayToTmp) {
  TempDir dir;
  const std::string base = fs::canonical(dir.path()).string();
  const std::string home = base + "/home/user";
  fs::create_directories(home + "/.ssh/tmp");
  fs::create_directories(base + "/work/src");
  fs::create_directories(base + "/scratch");
  for (const std::string& tmp : {home, base + "/home", home + "/.ssh/tmp", std::string("/")}) {
    auto s = DefaultSettings(base + "/work/src", Env({{"HOME", home}, {"TMPDIR", tmp}}));
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(s->temp_dir, "/tmp") << tmp;
    EXPECT_TRUE(Mentions(s->refused, "TMPDIR=" + tmp + " is not writable", "tools get /tmp"))
        << tmp;
    EXPECT_EQ(TempDirectory(Env({{"HOME", home}, {"TMPDIR", tmp}})), "/tmp") << tmp;
  }
  auto fine =
      DefaultSettings(base + "/work/src", Env({{"HOME", home}, {"TMPDIR", base + "/scratch"}}));
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine->temp_dir, base + "/scratch");
  EXPECT_TRUE(fine->refused.empty());
}

// sandbox.writable_roots cannot open what the sandbox keeps closed: /, $HOME,
// a directory above it, one that holds a secret or lies in one.
TEST(WorkspaceTest, WritableRootsThatHoldHomeOrASecretAreLeftOut) {
  TempDir dir;
  const std::string base = fs::canonical(dir.path()).string();
  const std::string home = base + "/home/user";
  fs::create_directories(home + "/.config/gh");
  fs::create_directories(home + "/.config/nvim");
  fs::create_directories(home + "/.aws/cache");
  fs::create_directories(base + "/cache");
  fs::create_directories(base + "/work");
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"/", "it is /"},
      {home, "it is your home directory"},
      {base + "/home", "it holds your home directory"},
      {home + "/.config", "it holds " + home + "/.config/gh"},
      {home + "/.aws/cache", "it lies in " + home + "/.aws"},
  };
  std::vector<std::string> roots = {base + "/cache", home + "/.config/nvim"};
  for (const auto& [root, why] : refused) roots.push_back(root);
  auto s = DefaultSettings(base + "/work", Env({{"HOME", home}}), roots);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->extra_writable, (std::vector<std::string>{base + "/cache", home + "/.config/nvim"}));
  for (const auto& [root, why] : refused) {
    EXPECT_TRUE(Mentions(s->refused, "sandbox.writable_roots: " + root + " is left out", why))
        << root;
  }
}

// The hooks and config of every git directory below the top level's
// (submodules, nested, named with a slash; linked worktrees) are protected,
// found again at each call: a submodule added later is protected too. So is
// the start directory's .ikigai/, where project tools load from.
TEST(WorkspaceTest, SubmodulesWorktreesAndTheStartDirectorysIkigaiAreProtected) {
  TempDir dir;
  const std::string repo = fs::canonical(dir.path()).string() + "/repo";
  const std::string git = repo + "/.git";
  for (const std::string& module :
       {git + "/modules/a", git + "/modules/a/modules/b", git + "/modules/group/c"}) {
    fs::create_directories(module + "/hooks");
    testing::WriteFile(module + "/HEAD", "ref: refs/heads/main\n");
  }
  fs::create_directories(git + "/worktrees/wt");
  fs::create_directories(repo + "/src/deep");
  auto s = DefaultSettings(repo + "/src/deep", Env({{"HOME", dir / "home"}}));
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->workspace, repo);
  EXPECT_TRUE(Has(s->protected_paths, git + "/config.worktree"));
  EXPECT_TRUE(Has(s->protected_paths, repo + "/.ikigai"));
  EXPECT_TRUE(Has(s->protected_paths, repo + "/src/deep/.ikigai"));
  const std::vector<std::string> now = ProtectedPaths(*s);
  for (const std::string& git_dir : {git + "/modules/a", git + "/modules/a/modules/b",
                                     git + "/modules/group/c", git + "/worktrees/wt"}) {
    for (const char* name : {"/hooks", "/config", "/config.worktree"}) {
      EXPECT_TRUE(Has(now, git_dir + name)) << git_dir + name;
    }
  }
  EXPECT_FALSE(Has(now, git + "/modules/group/hooks")) << "group is a step of a name";
  fs::create_directories(git + "/modules/later/hooks");
  testing::WriteFile(git + "/modules/later/HEAD", "ref: refs/heads/main\n");
  EXPECT_TRUE(Has(ProtectedPaths(*s), git + "/modules/later/hooks"));
}

TEST(WorkspaceTest, RelativeOrMissingStartIsAnError) {
  EXPECT_FALSE(DefaultSettings("relative/dir", Env({})).ok());
  EXPECT_FALSE(DefaultSettings("/nonexistent/dir/x", Env({})).ok());
}

}  // namespace
}  // namespace ikigai::sandbox
