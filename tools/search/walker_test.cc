#include "search/walker.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "search/ignore_rules.h"
#include "testing/tool_runner.h"

namespace ikigai::search {
namespace {

using testing::TempDir;

struct Seen {
  EntryType type;
  bool ignored;
};

// Walks and returns every reported entry by path; fails the test on a
// duplicate path or on an error.
std::map<std::string, Seen> WalkAll(WalkOptions options, WalkStats* stats = nullptr) {
  std::vector<std::vector<std::pair<std::string, Seen>>> per_worker(WorkerCount(options));
  auto walked = Walk(options, [&](const Entry& e, unsigned worker) {
    EXPECT_LT(worker, per_worker.size());
    EXPECT_EQ(e.path.substr(e.path.size() - e.name.size()), e.name);
    per_worker[worker].emplace_back(std::string(e.path), Seen{e.type, e.ignored});
  });
  EXPECT_TRUE(walked.ok()) << (walked.ok() ? 0 : walked.error());
  if (walked.ok() && stats != nullptr) *stats = *walked;
  std::map<std::string, Seen> all;
  for (const auto& v : per_worker) {
    for (const auto& [path, seen] : v) {
      EXPECT_TRUE(all.emplace(path, seen).second) << "reported twice: " << path;
    }
  }
  return all;
}

std::set<std::string> Paths(const std::map<std::string, Seen>& entries, bool include_ignored) {
  std::set<std::string> paths;
  for (const auto& [path, seen] : entries) {
    if (include_ignored || !seen.ignored) paths.insert(path);
  }
  return paths;
}

void MakeFile(const std::string& path, const std::string& content = "x\n") {
  for (std::size_t s = path.find('/', 1); s != std::string::npos; s = path.find('/', s + 1)) {
    ::mkdir(path.substr(0, s).c_str(), 0755);
  }
  testing::WriteFile(path, content);
}

void Git(const std::string& dir, const std::string& home) {
  const std::string cmd = "cd '" + dir + "' && env -i PATH=/usr/bin:/bin HOME='" + home +
                          "' GIT_CONFIG_NOSYSTEM=1 git init -q";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
}

bool InWorkTree(const std::string& dir) {
  char* real = ::realpath(dir.c_str(), nullptr);
  const bool in = real != nullptr && FindWorkTreeTop(real).has_value();
  std::free(real);
  return in;
}

TEST(Walker, ReportsRelativePathsWithTypes) {
  TempDir dir;
  MakeFile(dir / "a.txt");
  MakeFile(dir / "src/lib/b.c");
  ASSERT_EQ(::mkdir((dir / "empty").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("a.txt", (dir / "link").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  for (const std::string& root :
       std::vector<std::string>{dir.path(), dir.path() + "/", dir.path() + "/./"}) {
    const auto all = WalkAll({.root = root});
    EXPECT_EQ(Paths(all, true), (std::set<std::string>{"a.txt", "empty", "fifo", "link", "src",
                                                       "src/lib", "src/lib/b.c"}))
        << root;
    EXPECT_EQ(all.at("a.txt").type, EntryType::kFile);
    EXPECT_EQ(all.at("src").type, EntryType::kDirectory);
    EXPECT_EQ(all.at("link").type, EntryType::kSymlink);
    EXPECT_EQ(all.at("fifo").type, EntryType::kOther);
    EXPECT_FALSE(all.at("a.txt").ignored);
  }
}

TEST(Walker, RelativeRootAndRootThroughASymlink) {
  TempDir dir;
  MakeFile(dir / "real/sub/f");
  ASSERT_EQ(::symlink("real", (dir / "via").c_str()), 0);
  EXPECT_EQ(Paths(WalkAll({.root = dir / "via"}), true), (std::set<std::string>{"sub", "sub/f"}));
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir((dir / "real").c_str()), 0);
  const auto from_dot = Paths(WalkAll({.root = "."}), true);
  const auto from_empty = Paths(WalkAll({.root = ""}), true);
  const auto from_sub = Paths(WalkAll({.root = "sub"}), true);
  ASSERT_EQ(::chdir(cwd), 0);
  EXPECT_EQ(from_dot, (std::set<std::string>{"sub", "sub/f"}));
  EXPECT_EQ(from_empty, from_dot);
  EXPECT_EQ(from_sub, (std::set<std::string>{"f"}));
}

TEST(Walker, RootErrors) {
  TempDir dir;
  MakeFile(dir / "file");
  auto missing = Walk({.root = dir / "missing"}, [](const Entry&, unsigned) {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), ENOENT);
  auto file = Walk({.root = dir / "file"}, [](const Entry&, unsigned) {});
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error(), ENOTDIR);
}

TEST(Walker, WorkerCountIsClamped) {
  EXPECT_EQ(WorkerCount({.threads = 1}), 1u);
  EXPECT_EQ(WorkerCount({.threads = 3}), 3u);
  EXPECT_EQ(WorkerCount({.threads = 64}), 8u);
  const unsigned automatic = WorkerCount({});
  EXPECT_GE(automatic, 1u);
  EXPECT_LE(automatic, 8u);
}

TEST(Walker, HiddenEntriesSkippedUnlessAsked) {
  TempDir dir;
  MakeFile(dir / ".hidden");
  MakeFile(dir / ".hdir/inside");
  MakeFile(dir / "visible/.dotfile");
  MakeFile(dir / "visible/plain");
  EXPECT_EQ(Paths(WalkAll({.root = dir.path()}), true),
            (std::set<std::string>{"visible", "visible/plain"}));
  EXPECT_EQ(Paths(WalkAll({.root = dir.path(), .include_hidden = true}), true),
            (std::set<std::string>{".hdir", ".hdir/inside", ".hidden", "visible",
                                   "visible/.dotfile", "visible/plain"}));
}

TEST(Walker, NeverEntersDotGit) {
  TempDir dir;
  TempDir home;
  Git(dir.path(), home.path());
  MakeFile(dir / "a");
  MakeFile(dir / "sub/.git");  // a worktree-style .git file is not reported either
  MakeFile(dir / "sub/b");
  for (bool use_ignore_files : {true, false}) {
    const auto all =
        WalkAll({.root = dir.path(), .use_ignore_files = use_ignore_files, .include_hidden = true});
    for (const auto& [path, seen] : all) {
      EXPECT_EQ(path.find(".git/"), std::string::npos) << path;
      EXPECT_FALSE(path == ".git" || path.ends_with("/.git")) << path;
    }
    EXPECT_TRUE(all.count("a"));
    EXPECT_TRUE(all.count("sub/b"));
  }
  // Even as the walk's root, .git's contents are walked: only a .git met
  // during the walk is skipped.
  EXPECT_FALSE(WalkAll({.root = dir / ".git", .include_hidden = true}).empty());
}

TEST(Walker, DotIgnoreHonouredOutsideGitButGitignoreIsNot) {
  TempDir dir;
  ASSERT_FALSE(InWorkTree(dir.path())) << "the temporary directory sits in a git work tree";
  MakeFile(dir / ".ignore", "*.tmp\nskipdir/\n");
  MakeFile(dir / ".gitignore", "*.txt\n");
  MakeFile(dir / "a.tmp");
  MakeFile(dir / "b.txt");
  MakeFile(dir / "c.c");
  MakeFile(dir / "skipdir/d.c");
  MakeFile(dir / "sub/.ignore", "!keep.tmp\n");
  MakeFile(dir / "sub/keep.tmp");
  MakeFile(dir / "sub/other.tmp");
  const auto all = WalkAll({.root = dir.path()});
  EXPECT_EQ(Paths(all, false), (std::set<std::string>{"b.txt", "c.c", "sub", "sub/keep.tmp"}));
  EXPECT_TRUE(all.at("a.tmp").ignored);
  EXPECT_TRUE(all.at("skipdir").ignored);
  EXPECT_EQ(all.count("skipdir/d.c"), 0u);
  EXPECT_TRUE(all.at("sub/other.tmp").ignored);
}

TEST(Walker, NoIgnoreShowsEverything) {
  TempDir dir;
  TempDir home;
  Git(dir.path(), home.path());
  MakeFile(dir / ".gitignore", "*\n");
  MakeFile(dir / ".ignore", "*\n");
  MakeFile(dir / ".git/info/exclude", "*\n");
  MakeFile(dir / "a/b/c");
  MakeFile(dir / "d");
  MakeFile(dir / ".e");
  const auto ruled = WalkAll({.root = dir.path()});
  EXPECT_EQ(Paths(ruled, false), std::set<std::string>{});
  EXPECT_EQ(Paths(ruled, true), (std::set<std::string>{"a", "d"}));  // reported as ignored
  const auto all = WalkAll({.root = dir.path(), .use_ignore_files = false});
  EXPECT_EQ(Paths(all, false), (std::set<std::string>{"a", "a/b", "a/b/c", "d"}));
  const auto hidden =
      WalkAll({.root = dir.path(), .use_ignore_files = false, .include_hidden = true});
  EXPECT_EQ(Paths(hidden, false),
            (std::set<std::string>{".e", ".gitignore", ".ignore", "a", "a/b", "a/b/c", "d"}));
}

TEST(Walker, IgnoredEntriesReportedAndIgnoredDirectoriesNotEntered) {
  TempDir dir;
  TempDir home;
  Git(dir.path(), home.path());
  MakeFile(dir / ".gitignore", "ign/\n*.tmp\n");
  MakeFile(dir / "ign/x.c");
  MakeFile(dir / "ign/deep/y.c");
  MakeFile(dir / "a.tmp");
  MakeFile(dir / "keep.c");
  MakeFile(dir / "sub/b.tmp");
  std::atomic<int> descended_into_ign{0};
  WalkOptions options{.root = dir.path()};
  options.descend = [&](std::string_view d) {
    if (d.starts_with("ign")) ++descended_into_ign;
    return true;
  };
  const auto all = WalkAll(options);
  EXPECT_EQ(Paths(all, true),
            (std::set<std::string>{"a.tmp", "ign", "keep.c", "sub", "sub/b.tmp"}));
  EXPECT_TRUE(all.at("ign").ignored);
  EXPECT_EQ(all.at("ign").type, EntryType::kDirectory);
  EXPECT_TRUE(all.at("a.tmp").ignored);
  EXPECT_TRUE(all.at("sub/b.tmp").ignored);
  EXPECT_FALSE(all.at("keep.c").ignored);
  EXPECT_FALSE(all.at("sub").ignored);
  EXPECT_EQ(descended_into_ign.load(), 0);
}

TEST(Walker, DescendPrunes) {
  TempDir dir;
  MakeFile(dir / "keep/a");
  MakeFile(dir / "keep/skip/b");
  MakeFile(dir / "skip/c");
  MakeFile(dir / "d");
  std::mutex mu;
  std::vector<std::string> asked;
  WalkOptions options{.root = dir.path(), .threads = 2};
  options.descend = [&](std::string_view d) {
    std::lock_guard lock(mu);
    asked.emplace_back(d);
    return d != "skip" && d != "keep/skip";
  };
  const auto all = WalkAll(options);
  EXPECT_EQ(Paths(all, true), (std::set<std::string>{"d", "keep", "keep/a", "keep/skip", "skip"}));
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<std::string>{"keep", "keep/skip", "skip"}));  // never the root
}

TEST(Walker, RulesAboveTheRootApply) {
  TempDir dir;
  TempDir home;
  Git(dir.path(), home.path());
  MakeFile(dir / ".gitignore", "*.o\n/build\nsrc/gen/\n");
  MakeFile(dir / "src/.ignore", "*.tmp\n");
  MakeFile(dir / "src/a.o");
  MakeFile(dir / "src/a.c");
  MakeFile(dir / "src/build/b.c");  // "/build" is anchored at the top: kept
  MakeFile(dir / "src/gen/c.c");
  MakeFile(dir / "src/lib/d.tmp");
  const auto all = WalkAll({.root = dir / "src/"});
  EXPECT_EQ(Paths(all, false), (std::set<std::string>{"a.c", "build", "build/b.c", "lib"}));
  EXPECT_TRUE(all.at("a.o").ignored);
  EXPECT_TRUE(all.at("gen").ignored);
  EXPECT_TRUE(all.at("lib/d.tmp").ignored);
  // A root the rules above it ignore is still walked, as ripgrep and fd do
  // (git would list nothing there); the rules still apply inside it.
  MakeFile(dir / "build/sub/e.c");
  MakeFile(dir / "build/sub/f.o");
  const auto in_ignored = WalkAll({.root = dir / "build/sub"});
  EXPECT_EQ(Paths(in_ignored, false), (std::set<std::string>{"e.c"}));
  EXPECT_TRUE(in_ignored.at("f.o").ignored);
}

TEST(Walker, NestedRepositoryStartsItsOwnRules) {
  TempDir dir;
  TempDir home;
  Git(dir.path(), home.path());
  MakeFile(dir / ".gitignore", "*.txt\n");
  MakeFile(dir / "a.txt");
  ASSERT_EQ(::mkdir((dir / "inner").c_str(), 0755), 0);
  Git(dir / "inner", home.path());
  MakeFile(dir / "inner/.gitignore", "*.md\n");
  MakeFile(dir / "inner/.git/info/exclude", "*.secret\n");
  MakeFile(dir / "inner/b.txt");
  MakeFile(dir / "inner/c.md");
  MakeFile(dir / "inner/d.secret");
  const auto all = WalkAll({.root = dir.path()});
  EXPECT_EQ(Paths(all, false), (std::set<std::string>{"inner", "inner/b.txt"}));
  // A walk that starts outside any work tree still applies a nested
  // repository's .gitignore inside it.
  TempDir outside;
  ASSERT_FALSE(InWorkTree(outside.path()));
  MakeFile(outside / "repo/x.md");
  MakeFile(outside / "repo/y.c");
  MakeFile(outside / "repo/.gitignore", "*.md\n");
  Git(outside / "repo", home.path());
  MakeFile(outside / "z.md");
  MakeFile(outside / ".gitignore", "*.c\n");  // outside a work tree: not read
  EXPECT_EQ(Paths(WalkAll({.root = outside.path()}), false),
            (std::set<std::string>{"repo", "repo/y.c", "z.md"}));
}

TEST(Walker, SymlinkLoopsTerminate) {
  TempDir dir;
  MakeFile(dir / "f");
  MakeFile(dir / "d/g");
  ASSERT_EQ(::symlink(".", (dir / "a").c_str()), 0);
  ASSERT_EQ(::symlink("..", (dir / "b").c_str()), 0);
  ASSERT_EQ(::symlink("a", (dir / "c").c_str()), 0);
  ASSERT_EQ(::symlink("..", (dir / "d/up").c_str()), 0);
  const auto all = WalkAll({.root = dir.path(), .threads = 4});  // fails on a duplicate
  EXPECT_EQ(Paths(all, true), (std::set<std::string>{"a", "b", "c", "d", "d/g", "d/up", "f"}));
  for (const char* link : {"a", "b", "c", "d/up"}) {
    EXPECT_EQ(all.at(link).type, EntryType::kSymlink) << link;
  }
}

TEST(Walker, HundredThousandFilesInOneDirectory) {
  TempDir dir;
  const std::string big = dir / "big";
  ASSERT_EQ(::mkdir(big.c_str(), 0755), 0);
  constexpr int kFiles = 100000;
  for (int i = 0; i < kFiles; ++i) {
    const std::string name = big + "/file-" + std::to_string(i) + ".txt";
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << name;
    ::close(fd);
  }
  MakeFile(dir / "other");
  std::atomic<std::size_t> files{0};
  std::atomic<std::size_t> total{0};
  std::atomic<bool> all_named_right{true};
  auto walked = Walk({.root = dir.path(), .threads = 4}, [&](const Entry& e, unsigned) {
    ++total;
    if (e.type == EntryType::kFile && e.path.starts_with("big/file-")) ++files;
    if (e.path.substr(0, e.path.size() - e.name.size()) !=
        (e.path == "big" || e.path == "other" ? "" : "big/")) {
      all_named_right = false;
    }
  });
  ASSERT_TRUE(walked.ok());
  EXPECT_EQ(files.load(), static_cast<std::size_t>(kFiles));
  EXPECT_EQ(total.load(), static_cast<std::size_t>(kFiles) + 2);
  EXPECT_TRUE(all_named_right.load());
}

TEST(Walker, DeterministicOverRepeatedParallelWalks) {
  TempDir dir;
  std::size_t made = 0;
  for (int a = 0; a < 12; ++a) {
    for (int b = 0; b < 8; ++b) {
      for (int c = 0; c < 30; ++c) {
        std::ostringstream path;
        path << "d" << a << "/e" << b << "/f" << c << ".txt";
        MakeFile(dir / path.str());
        ++made;
      }
    }
  }
  ASSERT_GE(made, 2000u);
  std::vector<std::string> first;
  for (int run = 0; run < 20; ++run) {
    std::vector<std::vector<std::string>> per_worker(4);
    auto walked = Walk({.root = dir.path(), .threads = 4}, [&](const Entry& e, unsigned worker) {
      per_worker[worker].emplace_back(e.path);
    });
    ASSERT_TRUE(walked.ok());
    std::vector<std::string> all;
    for (auto& v : per_worker) all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    ASSERT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a path visited twice";
    ASSERT_EQ(all.size(), made + 12 + 12 * 8);  // files and directories, each once
    if (run == 0) {
      first = std::move(all);
    } else {
      ASSERT_EQ(all, first) << "run " << run;
    }
  }
}

// The suite runs as root, which reads everything: a child process drops to
// nobody and walks a tree holding a directory only root may open.
TEST(Walker, UnreadableDirectoryIsSkippedAndCounted) {
  ASSERT_EQ(::geteuid(), 0u) << "this test drops privileges and must start as root";
  TempDir dir;
  MakeFile(dir / "ok/a");
  MakeFile(dir / "b");
  MakeFile(dir / "locked/secret");
  MakeFile(dir / "z/after");
  ASSERT_EQ(::chmod((dir / "locked").c_str(), 0700), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(testing::kNobody) != 0 ||
        ::setuid(testing::kNobody) != 0) {
      ::_exit(3);
    }
    std::mutex mu;
    std::string out;
    auto walked = Walk({.root = dir.path(), .threads = 2}, [&](const Entry& e, unsigned) {
      std::lock_guard lock(mu);
      out += std::string(e.path) + "\n";
    });
    if (!walked.ok()) ::_exit(4);
    out = "unreadable " + std::to_string(walked->unreadable_directories) + "\n" + out;
    if (::write(fds[1], out.data(), out.size()) != static_cast<ssize_t>(out.size())) ::_exit(5);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) report.append(buf, n);
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "3: could not drop privileges, 4: the walk failed";
  std::istringstream in(report);
  std::string word;
  std::size_t unreadable = 99;
  in >> word >> unreadable;
  EXPECT_EQ(word, "unreadable");
  EXPECT_EQ(unreadable, 1u);
  std::set<std::string> paths;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) paths.insert(line);
  }
  EXPECT_EQ(paths, (std::set<std::string>{"b", "locked", "ok", "ok/a", "z", "z/after"}));
}

}  // namespace
}  // namespace ikigai::search
