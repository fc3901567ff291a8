#include "search/ignore_rules.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "search/walker.h"
#include "testing/tool_runner.h"

namespace ikigai::search {
namespace {

using testing::TempDir;

IgnoreVerdict Check(std::string_view text, std::string_view path, bool is_dir = false) {
  return IgnoreFile::Parse("", text).Check(path, is_dir);
}
constexpr IgnoreVerdict kIgnore = IgnoreVerdict::kIgnore;
constexpr IgnoreVerdict kKeep = IgnoreVerdict::kKeep;
constexpr IgnoreVerdict kNone = IgnoreVerdict::kNone;

// ---- One file's rules -------------------------------------------------------

TEST(IgnoreFile, CommentsBlankLinesAndEscapes) {
  const std::string text = "# a comment\n\n   \n\\#hash\n\\!bang\n";
  EXPECT_EQ(Check(text, "# a comment"), kNone);
  EXPECT_EQ(Check(text, "#hash"), kIgnore);
  EXPECT_EQ(Check(text, "!bang"), kIgnore);
  EXPECT_EQ(Check(text, "hash"), kNone);
  EXPECT_EQ(Check(text, "bang"), kNone);
  EXPECT_TRUE(IgnoreFile::Parse("", "# only\n\n#comments\n").empty());
}

TEST(IgnoreFile, TrailingSpacesAreTrimmedUnlessEscaped) {
  EXPECT_EQ(Check("name   \n", "name"), kIgnore);
  EXPECT_EQ(Check("name   \n", "name   "), kNone);
  EXPECT_EQ(Check("name\\ \n", "name "), kIgnore);
  EXPECT_EQ(Check("name\\ \n", "name"), kNone);
  EXPECT_EQ(Check("a\\  \n", "a "), kIgnore);       // escaped space kept, the rest trimmed
  EXPECT_EQ(Check("name\t\n", "name\t"), kIgnore);  // only spaces are trimmed, as in git
}

TEST(IgnoreFile, CrLfLinesBomAndMissingFinalNewline) {
  EXPECT_EQ(Check("a.txt\r\nb.txt\r\n", "a.txt"), kIgnore);
  EXPECT_EQ(Check("a.txt\r\nb.txt", "b.txt"), kIgnore);
  EXPECT_EQ(Check("\xEF\xBB\xBF"
                  "first\n",
                  "first"),
            kIgnore);
}

TEST(IgnoreFile, NegationAndLastMatchingRuleWins) {
  const std::string text = "*.log\n!keep.log\n";
  EXPECT_EQ(Check(text, "a.log"), kIgnore);
  EXPECT_EQ(Check(text, "keep.log"), kKeep);
  EXPECT_EQ(Check(text, "x/keep.log"), kKeep);
  EXPECT_EQ(Check("!keep.log\n*.log\n", "keep.log"), kIgnore);  // order matters
  EXPECT_EQ(Check(text, "a.txt"), kNone);
}

TEST(IgnoreFile, DirectoryOnlyPatterns) {
  EXPECT_EQ(Check("tmp/\n", "tmp", /*is_dir=*/true), kIgnore);
  EXPECT_EQ(Check("tmp/\n", "tmp", /*is_dir=*/false), kNone);
  EXPECT_EQ(Check("tmp/\n", "a/b/tmp", true), kIgnore);
  EXPECT_EQ(Check("a/tmp/\n", "a/tmp", true), kIgnore);
  EXPECT_EQ(Check("a/tmp/\n", "x/a/tmp", true), kNone);
}

TEST(IgnoreFile, SlashAnchorsThePattern) {
  EXPECT_EQ(Check("/build\n", "build", true), kIgnore);
  EXPECT_EQ(Check("/build\n", "src/build", true), kNone);
  EXPECT_EQ(Check("build\n", "src/build", true), kIgnore);
  EXPECT_EQ(Check("doc/frotz\n", "doc/frotz"), kIgnore);
  EXPECT_EQ(Check("doc/frotz\n", "a/doc/frotz"), kNone);
  EXPECT_EQ(Check("src/*.h\n", "src/a.h"), kIgnore);
  EXPECT_EQ(Check("src/*.h\n", "src/x/a.h"), kNone);
}

TEST(IgnoreFile, DoubleStar) {
  EXPECT_EQ(Check("**/gen\n", "gen", true), kIgnore);
  EXPECT_EQ(Check("**/gen\n", "a/b/gen", true), kIgnore);
  EXPECT_EQ(Check("**/a/gen\n", "x/a/gen"), kIgnore);
  EXPECT_EQ(Check("**/a/gen\n", "x/b/gen"), kNone);
  EXPECT_EQ(Check("out/**\n", "out", true), kNone);
  EXPECT_EQ(Check("out/**\n", "out/x"), kIgnore);
  EXPECT_EQ(Check("out/**\n", "out/x/y"), kIgnore);
  EXPECT_EQ(Check("a/**/b\n", "a/b"), kIgnore);
  EXPECT_EQ(Check("a/**/b\n", "a/x/y/b"), kIgnore);
  EXPECT_EQ(Check("a/**/b\n", "a/x/y/c"), kNone);
  EXPECT_EQ(Check("**\n", "anything/at/all"), kIgnore);
  EXPECT_EQ(Check("**/x.c\n", "a/b/x.c"), kIgnore);
  EXPECT_EQ(Check("/**/x.c\n", "x.c"), kIgnore);
  EXPECT_EQ(Check("**/*.c\n", "a/b/y.c"), kIgnore);
  EXPECT_EQ(Check("**/*.c\n", "a/b/y.h"), kNone);
}

TEST(IgnoreFile, PatternsEndingInEscapesOrClasses) {
  EXPECT_EQ(Check("a\\?\n", "a?"), kIgnore);
  EXPECT_EQ(Check("a\\?\n", "ab"), kNone);
  EXPECT_EQ(Check("\\#*#\n", "#x#"), kIgnore);
  EXPECT_EQ(Check("*.py[cod]\n", "m.pyc"), kIgnore);
  EXPECT_EQ(Check("*.py[cod]\n", "m.py"), kNone);
  EXPECT_EQ(Check("x\\\\\n", "x\\"), kIgnore);  // an escaped backslash
  EXPECT_EQ(Check("src/*.[ch]\n", "src/a.h"), kIgnore);
}

TEST(IgnoreFile, WildcardsMatchLeadingDots) {
  // Unlike glob's own patterns, gitignore's `*` matches a leading dot.
  EXPECT_EQ(Check("*\n", ".hidden"), kIgnore);
  EXPECT_EQ(Check("*.swp\n", ".x.swp"), kIgnore);
}

TEST(IgnoreFile, MalformedPatternsMatchNothing) {
  EXPECT_EQ(Check("[abc\n", "[abc"), kNone);
  EXPECT_EQ(Check("[abc\n", "a"), kNone);
  EXPECT_EQ(Check("foo\\\n", "foo"), kNone);
  EXPECT_EQ(Check("!\n/\n", "x"), kNone);
  EXPECT_EQ(Check("a//b\n", "a/b"), kNone);
}

TEST(IgnoreFile, BaseDirectoryGovernsRelativePaths) {
  const IgnoreFile f = IgnoreFile::Parse("src/lib", "/gen\n*.o\nsub/x\n");
  EXPECT_EQ(f.Check("src/lib/gen", true), kIgnore);
  EXPECT_EQ(f.Check("src/lib/a/gen", true), kNone);
  EXPECT_EQ(f.Check("src/lib/a/b.o", false), kIgnore);
  EXPECT_EQ(f.Check("src/lib/sub/x", false), kIgnore);
  EXPECT_EQ(f.base(), "src/lib");
}

// ---- Chains ---------------------------------------------------------------

TEST(IgnoreChain, DeeperFilesOverrideShallowerOnesThenInfoExclude) {
  IgnoreChain::Files top;
  top.repository_top = true;
  top.gitignore = IgnoreFile::Parse("", "*.log\n");
  top.git_exclude = IgnoreFile::Parse("", "*.bak\n*.tmp\n");
  auto root = IgnoreChain::Push(nullptr, std::move(top));
  IgnoreChain::Files sub;
  sub.gitignore = IgnoreFile::Parse("sub", "!*.log\n!*.bak\n");
  auto child = IgnoreChain::Push(root, std::move(sub));

  EXPECT_TRUE(root->in_work_tree());
  EXPECT_TRUE(child->in_work_tree());
  EXPECT_TRUE(root->IsIgnored("a.log", false));
  EXPECT_FALSE(child->IsIgnored("sub/a.log", false));
  EXPECT_TRUE(root->IsIgnored("x.bak", false));
  EXPECT_FALSE(child->IsIgnored("sub/x.bak", false));  // .gitignore beats info/exclude
  EXPECT_TRUE(child->IsIgnored("sub/x.tmp", false));
  EXPECT_FALSE(child->IsIgnored("sub/x.c", false));
}

TEST(IgnoreChain, DotIgnoreBeatsGitignoreAtAnyDepth) {
  IgnoreChain::Files top;
  top.repository_top = true;
  top.ignore = IgnoreFile::Parse("", "!*.gen\n");
  auto root = IgnoreChain::Push(nullptr, std::move(top));
  IgnoreChain::Files sub;
  sub.gitignore = IgnoreFile::Parse("sub", "*.gen\n*.o\n");
  auto child = IgnoreChain::Push(root, std::move(sub));
  EXPECT_FALSE(child->IsIgnored("sub/a.gen", false));
  EXPECT_TRUE(child->IsIgnored("sub/a.o", false));
}

TEST(IgnoreChain, NestedRepositoryDoesNotInheritOuterGitignore) {
  IgnoreChain::Files top;
  top.repository_top = true;
  top.gitignore = IgnoreFile::Parse("", "*.txt\n");
  top.ignore = IgnoreFile::Parse("", "*.tmp\n");
  auto outer = IgnoreChain::Push(nullptr, std::move(top));
  IgnoreChain::Files nested;
  nested.repository_top = true;
  nested.gitignore = IgnoreFile::Parse("inner", "*.md\n");
  auto inner = IgnoreChain::Push(outer, std::move(nested));
  EXPECT_TRUE(outer->IsIgnored("a.txt", false));
  EXPECT_FALSE(inner->IsIgnored("inner/a.txt", false));
  EXPECT_TRUE(inner->IsIgnored("inner/a.md", false));
  EXPECT_TRUE(inner->IsIgnored("inner/a.tmp", false));  // .ignore crosses the boundary
}

TEST(IgnoreChain, KnowsWhetherItHoldsAnyRule) {
  IgnoreChain::Files top;
  top.repository_top = true;
  auto root = IgnoreChain::Push(nullptr, std::move(top));
  EXPECT_TRUE(root->in_work_tree());
  EXPECT_FALSE(root->has_rules());
  EXPECT_FALSE(root->IsIgnored("anything", false));
  IgnoreChain::Files sub;
  sub.ignore = IgnoreFile::Parse("sub", "*.o\n");
  auto child = IgnoreChain::Push(root, std::move(sub));
  EXPECT_TRUE(child->has_rules());
  EXPECT_TRUE(IgnoreChain::Push(child, IgnoreChain::Files{})->has_rules());
  EXPECT_FALSE(IgnoreChain::Push(nullptr, IgnoreChain::Files{})->in_work_tree());
}

TEST(IgnoreChain, FindWorkTreeTop) {
  TempDir dir;
  ASSERT_EQ(::mkdir((dir / "repo").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir / "repo/.git").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir / "repo/a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir / "repo/a/b").c_str(), 0755), 0);
  char* real = ::realpath(dir.path().c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  const std::string base = real;
  std::free(real);
  EXPECT_EQ(FindWorkTreeTop(base + "/repo/a/b"), base + "/repo");
  EXPECT_EQ(FindWorkTreeTop(base + "/repo"), base + "/repo");
  EXPECT_EQ(FindWorkTreeTop(base), std::nullopt);
}

// ---- Checked against git itself ------------------------------------------

// Runs a shell command in `dir` with a clean environment: no system or
// global git configuration, so no global excludes file can interfere.
std::string Sh(const std::string& dir, const std::string& home, const std::string& command) {
  const std::string cmd = "cd '" + dir + "' && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME='" +
                          home +
                          "' GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t "
                          "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t " +
                          command;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return {};
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  EXPECT_EQ(status, 0) << "command failed: " << command;
  return out;
}

class GitFixture {
 public:
  // home_ stays empty: no ~/.gitconfig, no ~/.config/git/ignore.
  const std::string& root() const { return dir_.path(); }
  std::string Path(const std::string& rel) const { return dir_ / rel; }
  void Git(const std::string& args, const std::string& sub = "") {
    Sh(sub.empty() ? root() : Path(sub), home_.path(), "git " + args + " >/dev/null 2>&1");
  }
  void Init(const std::string& sub = "") {
    if (!sub.empty()) MakeParents(sub + "/");
    Git("init -q", sub);
  }

  // Creates a file (and its parent directories).
  void File(const std::string& rel, const std::string& content = "x\n") {
    MakeParents(rel);
    testing::WriteFile(Path(rel), content);
  }
  void MakeParents(const std::string& rel) {
    for (std::size_t slash = rel.find('/'); slash != std::string::npos;
         slash = rel.find('/', slash + 1)) {
      ::mkdir(Path(rel.substr(0, slash)).c_str(), 0755);
    }
  }

  // What git lists in `sub` (paths relative to it).
  std::set<std::string> GitFiles(const std::string& sub = "") const {
    const std::string out = Sh(sub.empty() ? root() : Path(sub), home_.path(),
                               "git ls-files -z --cached --others --exclude-standard");
    std::set<std::string> files;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line, '\0');) {
      if (!line.empty()) files.insert(line);
    }
    return files;
  }

  // The files (and links) the walker keeps in `sub`.
  std::set<std::string> WalkerFiles(const std::string& sub = "", unsigned threads = 2) const {
    WalkOptions options;
    options.root = sub.empty() ? root() : Path(sub);
    options.include_hidden = true;
    options.threads = threads;
    std::vector<std::vector<std::string>> per_worker(WorkerCount(options));
    auto walked = Walk(options, [&](const Entry& e, unsigned worker) {
      if (!e.ignored && e.type != EntryType::kDirectory) per_worker[worker].emplace_back(e.path);
    });
    EXPECT_TRUE(walked.ok());
    std::set<std::string> files;
    for (const auto& v : per_worker) files.insert(v.begin(), v.end());
    return files;
  }

 private:
  TempDir dir_;
  TempDir home_;
};

std::string Diff(const std::set<std::string>& git, const std::set<std::string>& walker) {
  std::ostringstream out;
  for (const auto& p : git) {
    if (!walker.count(p)) out << "  only git lists:    " << p << "\n";
  }
  for (const auto& p : walker) {
    if (!git.count(p)) out << "  only walker keeps:  " << p << "\n";
  }
  return out.str();
}

#define EXPECT_SAME_AS_GIT(fixture, sub)                                 \
  do {                                                                   \
    const auto git_files = (fixture).GitFiles(sub);                      \
    const auto walker_files = (fixture).WalkerFiles(sub);                \
    EXPECT_FALSE(git_files.empty());                                     \
    EXPECT_EQ(git_files, walker_files) << Diff(git_files, walker_files); \
  } while (0)

TEST(IgnoreVsGit, CommentsEscapesNegationAnchorsAndDirectoryOnly) {
  GitFixture f;
  f.Init();
  f.File(".gitignore",
         "# a comment line\n"
         "\n"
         "*.log\n"
         "!keep.log\n"
         "/build\n"
         "tmp/\n"
         "\\#hash\n"
         "\\!bang\n"
         "trailing   \n"
         "space\\ \n"
         "[ab].c\n"
         "?.h\n");
  for (const char* p : {"a.log",
                        "keep.log",
                        "sub/b.log",
                        "sub/keep.log",
                        "build/x.c",
                        "sub/build/y.c",
                        "tmp/z",
                        "sub/tmp/w",
                        "sub2/tmp",
                        "#hash",
                        "hash",
                        "!bang",
                        "bang",
                        "trailing",
                        "trailing   x",
                        "space ",
                        "space",
                        "a.c",
                        "c.c",
                        "sub/b.c",
                        "x.h",
                        "xy.h",
                        "# a comment line",
                        "keep.txt"}) {
    f.File(p);
  }
  EXPECT_SAME_AS_GIT(f, "");
  // Spot checks that the fixture exercises what it claims to.
  const auto kept = f.WalkerFiles();
  EXPECT_TRUE(kept.count("keep.log"));
  EXPECT_FALSE(kept.count("a.log"));
  EXPECT_TRUE(kept.count("sub/build/y.c"));
  EXPECT_FALSE(kept.count("build/x.c"));
  EXPECT_TRUE(kept.count("sub2/tmp"));
  EXPECT_FALSE(kept.count("#hash"));
  EXPECT_FALSE(kept.count("space "));
  EXPECT_TRUE(kept.count("space"));
}

TEST(IgnoreVsGit, NestedGitignoresAndDoubleStars) {
  GitFixture f;
  f.Init();
  f.File(".gitignore",
         "*.log\n"
         "**/gen\n"
         "docs/**\n"
         "!docs/keep.md\n"
         "a/**/b\n"
         "out/\n"
         "!out/important.txt\n"
         "**/cache/*.bin\n");
  f.File("sub/.gitignore",
         "!*.log\n"
         "/local\n"
         "deep/*.tmp\n");
  f.File("sub/deep/.gitignore",
         "*\n"
         "!*.keep\n"
         "!.gitignore\n");
  for (const char* p : {"x.log",
                        "sub/x.log",
                        "sub/y/z.log",
                        "gen/a",
                        "src/gen/b",
                        "src/gen2/c",
                        "docs/a.md",
                        "docs/keep.md",
                        "docs/deeper/keep.md",
                        "a/b",
                        "a/x/y/b",
                        "a/x/c",
                        "a/b2",
                        "out/important.txt",
                        "out/other",
                        "sub/out/important.txt",
                        "cache/a.bin",
                        "x/cache/b.bin",
                        "x/cache/c.txt",
                        "sub/local/f",
                        "sub/x/local/f",
                        "sub/deep/a.tmp",
                        "sub/deep/b.keep",
                        "sub/deep/c.txt",
                        "sub/deep/inner/d.keep",
                        "sub/x.tmp",
                        "sub/other/deep/a.tmp"}) {
    f.File(p);
  }
  EXPECT_SAME_AS_GIT(f, "");
  const auto kept = f.WalkerFiles();
  EXPECT_TRUE(kept.count("docs/keep.md"));
  EXPECT_FALSE(kept.count("out/important.txt"));  // its directory is excluded
  EXPECT_TRUE(kept.count("sub/x.log"));           // a deeper file overrides
  EXPECT_TRUE(kept.count("sub/deep/b.keep"));
  EXPECT_FALSE(kept.count("sub/deep/inner/d.keep"));
}

TEST(IgnoreVsGit, InfoExcludeIsOverriddenByGitignore) {
  GitFixture f;
  f.Init();
  f.File(".git/info/exclude", "# git's template comment\n*.bak\n/secret\n*.tmp\n");
  f.File(".gitignore", "!important.bak\n");
  f.File("sub/.gitignore", "!*.tmp\n");
  for (const char* p : {"a.bak", "important.bak", "x/important.bak", "secret", "x/secret", "a.tmp",
                        "sub/b.tmp", "sub/c.bak", "plain"}) {
    f.File(p);
  }
  EXPECT_SAME_AS_GIT(f, "");
  const auto kept = f.WalkerFiles();
  EXPECT_FALSE(kept.count("a.bak"));
  EXPECT_TRUE(kept.count("important.bak"));
  EXPECT_TRUE(kept.count("sub/b.tmp"));
}

TEST(IgnoreVsGit, WalkRootedInASubdirectoryUsesTheRulesAboveIt) {
  GitFixture f;
  f.Init();
  f.File(".git/info/exclude", "*.secret\n");
  f.File(".gitignore", "*.o\n/build\nsrc/gen/\n!src/lib/keep.o\nsrc/**/tmp\n");
  f.File("src/.gitignore", "lib/*.a\n/local\n");
  f.File("src/lib/.gitignore", "!x.a\n");
  for (const char* p :
       {"a.o", "build/a.c", "src/a.o", "src/b.c", "src/build/c.c", "src/gen/d.c", "src/x/gen/e.c",
        "src/lib/keep.o", "src/lib/f.a", "src/lib/x.a", "src/lib/g.c", "src/lib/tmp", "src/local/h",
        "src/lib/local/i", "src/k.secret", "src/lib/deep/tmp/j"}) {
    f.File(p);
  }
  EXPECT_SAME_AS_GIT(f, "src");
  EXPECT_SAME_AS_GIT(f, "src/lib");
  EXPECT_SAME_AS_GIT(f, "");
  const auto kept = f.WalkerFiles("src");
  EXPECT_TRUE(kept.count("build/c.c"));  // "/build" is anchored at the top
  EXPECT_FALSE(kept.count("a.o"));
  EXPECT_TRUE(kept.count("lib/keep.o"));
  EXPECT_FALSE(kept.count("gen/d.c"));
  EXPECT_FALSE(kept.count("k.secret"));
}

TEST(IgnoreVsGit, SymbolicLinksAreEntriesNotDirectories) {
  GitFixture f;
  f.Init();
  f.File(".gitignore", "linkdir/\n*.lnk\n");
  f.File("real/a.txt");
  ASSERT_EQ(::symlink("real", f.Path("linkdir").c_str()), 0);  // not a directory for git
  ASSERT_EQ(::symlink("real", f.Path("sub.lnk").c_str()), 0);
  ASSERT_EQ(::symlink("real/a.txt", f.Path("file-link").c_str()), 0);
  ASSERT_EQ(::symlink("missing", f.Path("dangling").c_str()), 0);
  EXPECT_SAME_AS_GIT(f, "");
  EXPECT_TRUE(f.WalkerFiles().count("linkdir"));
}

TEST(IgnoreVsGit, WorktreeSharesTheRepositorysInfoExclude) {
  GitFixture f;
  f.Init("main");
  f.File("main/.git/info/exclude", "*.secret\n");
  f.File("main/README");
  f.Git("add README", "main");
  f.Git("commit -q -m init", "main");
  f.Git("worktree add -q ../wt", "main");
  ASSERT_TRUE(testing::ReadFile(f.Path("wt/.git")).starts_with("gitdir: "));
  f.File("wt/a.secret");
  f.File("wt/b.txt");
  f.File("wt/.gitignore", "*.txt\n!b.txt\nc*\n");
  f.File("wt/c.md");
  EXPECT_SAME_AS_GIT(f, "wt");
  EXPECT_FALSE(f.WalkerFiles("wt").count("a.secret"));
}

// Random trees and random rules, many seeds: anything the hand-written
// fixtures did not think of.
TEST(IgnoreVsGit, RandomTreesAndRules) {
  const std::vector<std::string> dirs = {"a", "b", "src", "build", "lib", "tmp", "x", ".hid"};
  const std::vector<std::string> files = {"main.c", "util.h",    "a.log", "keep.log", "x.o",
                                          "README", "data.json", "b.tmp", ".hidden",  "notes.txt",
                                          "c",      "b",         "lib",   "x",        "#f",
                                          "!g",     "a b",       "z.c",   "1.txt"};
  const std::vector<std::string> patterns = {
      "*.log",     "!keep.log",    "*.o",       "/build",     "build/",
      "tmp",       "!tmp",         "**/lib",    "lib/**",     "a/**/c",
      "src/*.h",   "!src/util.h",  "*.tmp",     "!*.tmp",     "x",
      "x/",        "/a",           "a/b",       "**/b/*.c",   "?.c",
      "[ab]",      "[!a]*.json",   "README",    "!README",    "c/",
      "*",         "!*.c",         "!*/",       "b/**/",      ".hidden",
      "!.hidden",  "data.*",       "# comment", "",           "lib",
      "*/x",       "**/*.json",    "!a/**",     "\\#f",       "\\!g",
      "a\\ b",     "notes.txt   ", "/*.c",      "src/",       "!src/",
      "**/tmp/**", "b/*",          "!b/x",      ".hid/",      "[[:digit:]]*",
      "*.[ch]",    "!lib/*.c",     "!lib/",     "a/*/main.c", "**/a/**/*.h"};
  std::size_t all_files = 0, all_kept = 0, sub_walks = 0;
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&rng](const std::vector<std::string>& v) -> const std::string& {
      return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
    };
    auto is_dir = [](const std::string& path) {
      struct stat st {};
      return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    };
    GitFixture f;
    f.Init();
    std::discrete_distribution<int> depths{15, 35, 35, 15};  // 0 to 3 directories deep
    for (int i = 0; i < 400; ++i) {
      std::string file;
      for (int d = depths(rng); d > 0; --d) file += pick(dirs) + "/";
      file += pick(files);
      // A name cannot be both a directory and a file.
      struct stat st {};
      if (::stat(f.Path(file).c_str(), &st) == 0) continue;
      f.MakeParents(file);
      if (is_dir(f.Path(file.substr(0, file.rfind('/') + 1))))
        testing::WriteFile(f.Path(file), "x\n");
    }
    std::vector<std::string> shallow_dirs = {""};  // candidates for .gitignore files
    for (const auto& a : dirs) {
      if (is_dir(f.Path(a))) shallow_dirs.push_back(a);
      for (const auto& b : dirs) {
        if (is_dir(f.Path(a + "/" + b))) shallow_dirs.push_back(a + "/" + b);
      }
    }
    auto rules = [&](int n) {
      std::string text;
      for (int i = 0; i < n; ++i) text += pick(patterns) + "\n";
      return text;
    };
    std::string all_rules;
    for (int i = 0; i < 5; ++i) {
      const std::string d = i == 0 ? "" : pick(shallow_dirs);
      const std::string text = rules(std::uniform_int_distribution<int>(1, 6)(rng));
      testing::WriteFile(f.Path(d.empty() ? ".gitignore" : d + "/.gitignore"), text);
      all_rules += "--- " + d + "/.gitignore\n" + text;
    }
    if (seed % 2 == 0) {
      const std::string text = rules(3);
      testing::WriteFile(f.Path(".git/info/exclude"), text);
      all_rules += "--- .git/info/exclude\n" + text;
    }
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + all_rules);

    std::size_t files_here = 0;
    WalkOptions everything{.root = f.root(), .use_ignore_files = false, .include_hidden = true};
    std::atomic<std::size_t> counted{0};
    ASSERT_TRUE(Walk(everything, [&](const Entry& e, unsigned) {
                  if (e.type != EntryType::kDirectory) ++counted;
                }).ok());
    files_here = counted.load();

    const auto git_files = f.GitFiles();
    const auto walker_files = f.WalkerFiles();
    EXPECT_EQ(git_files, walker_files) << Diff(git_files, walker_files);
    all_files += files_here;
    all_kept += git_files.size();

    // Also from the subdirectories git lists most files in, where the rules
    // above the root apply. (git lists nothing in a directory that is itself
    // ignored, while the walker walks any root it is given, as ripgrep does:
    // such roots are not compared.)
    std::map<std::string, std::size_t> listed_below;
    for (const auto& p : git_files) {
      for (std::size_t s = p.find('/'); s != std::string::npos; s = p.find('/', s + 1)) {
        ++listed_below[p.substr(0, s)];
      }
    }
    std::vector<std::pair<std::size_t, std::string>> by_count;
    for (const auto& [d, n] : listed_below) by_count.emplace_back(n, d);
    std::sort(by_count.rbegin(), by_count.rend());
    for (std::size_t i = 0; i < by_count.size() && i < 3; ++i) {
      const std::string& d = by_count[i].second;
      const auto git_sub = f.GitFiles(d);
      const auto walker_sub = f.WalkerFiles(d);
      EXPECT_EQ(git_sub, walker_sub) << "rooted in " << d << "\n" << Diff(git_sub, walker_sub);
      ++sub_walks;
    }
  }
  // The fixtures did exercise both sides: some files kept, many ignored.
  EXPECT_GT(all_kept, all_files / 4);
  EXPECT_LT(all_kept, all_files * 3 / 4);
  EXPECT_GE(sub_walks, 20u);
  std::printf("random fixtures: %zu files, %zu kept by git, %zu subdirectory walks\n", all_files,
              all_kept, sub_walks);
}

}  // namespace
}  // namespace ikigai::search
