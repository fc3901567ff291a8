#include "sandbox/sandbox.h"

#include <grp.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sandbox/host.h"
#include "spawning/run_many.h"
#include "testing/tool_runner.h"
#include "toolkit/json.h"

namespace ikigai::sandbox {
namespace {

namespace fs = std::filesystem;
using toolkit::Json;

struct Dirs {
  Dirs() {
    char tmpl[] = "/var/tmp/ikigai-sandbox-XXXXXX";
    root = ::mkdtemp(tmpl);
    fs::create_directories(root + "/ws/.git/hooks");
    fs::create_directories(root + "/tmp");
    fs::create_directories(root + "/extra");
  }
  ~Dirs() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
  Settings MakeSettings() const {
    Settings s;
    s.workspace = root + "/ws";
    s.extra_writable = {root + "/extra"};
    s.temp_dir = root + "/tmp";
    s.secrets = DefaultSecrets(root + "/home");
    s.protected_paths = {root + "/ws/.git/hooks", root + "/ws/.git/config", root + "/ws/.ikigai"};
    s.runtime_dir = root + "/run";
    return s;
  }
  std::string root;
};

std::unique_ptr<Sandbox> Make(const Settings& s, Support support) {
  auto sb = Sandbox::Create(s, support);
  EXPECT_TRUE(sb.ok()) << sb.error();
  return std::move(*sb);
}

// Runs `script` under `c` in `cwd`; returns stdout and stderr.
std::string RunConfined(const Confinement& c, const std::string& script, const std::string& cwd) {
  spawning::Job job;
  job.spawn.path = "/bin/sh";
  job.spawn.argv = {"sh", "-c", script};
  job.spawn.env = spawning::EnvironmentWith({{"PATH", "/usr/bin:/bin"}});
  job.spawn.cwd = cwd;
  job.spawn.pre_exec = c.pre_exec;
  job.spawn.pre_exec_context = c.context;
  job.timeout = std::chrono::milliseconds(120000);
  auto outcome = spawning::RunAll({job}).front();
  EXPECT_EQ(outcome.end, spawning::JobEnd::kExited) << outcome.spawn_error;
  return outcome.out + outcome.err;
}

bool Exists(const std::string& p) { return fs::exists(fs::symlink_status(p)); }

TEST(SandboxTest, DescriptionIsJsonWithTheProfilesRoots) {
  Dirs d;
  auto sb = Make(d.MakeSettings(), Support{7, true, ""});
  const Json write = Json::parse(sb->For({Access::kWorkspaceWrite, false}).description);
  EXPECT_EQ(write["tier"], 2);
  EXPECT_EQ(write["landlock_abi"], 7);
  EXPECT_EQ(write["access"], "workspace-write");
  EXPECT_EQ(write["network"], false);
  EXPECT_EQ(write["writable_roots"],
            Json({d.root + "/ws", d.root + "/extra", d.root + "/tmp", "/tmp", "/dev/shm"}));
  EXPECT_EQ(write["protected"],
            Json({d.root + "/ws/.git/hooks", d.root + "/ws/.git/config", d.root + "/ws/.ikigai"}));
  const Json read = Json::parse(sb->For({Access::kReadOnly, true}).description);
  EXPECT_EQ(read["access"], "read-only");
  EXPECT_EQ(read["network"], true);
  EXPECT_EQ(read["writable_roots"], Json({d.root + "/tmp", "/tmp"}));

  auto tier1 = Make(d.MakeSettings(), Support{2, false, "no userns"});
  EXPECT_EQ(Json::parse(tier1->For({}).description)["tier"], 1);
  auto tier0 = Make(d.MakeSettings(), Support{0, true, ""});
  const Json none = Json::parse(tier0->For({}).description);
  EXPECT_EQ(none["tier"], 0);
  EXPECT_NE(none["note"].get<std::string>().find("no Landlock"), std::string::npos);
}

TEST(SandboxTest, ProfilesArePreparedOnceAndNetworkSettingWins) {
  Dirs d;
  Settings s = d.MakeSettings();
  s.network = true;
  auto sb = Make(s, Support{7, true, ""});
  const Confinement& a = sb->For({Access::kWorkspaceWrite, false});
  const Confinement& b = sb->For({Access::kWorkspaceWrite, false});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &sb->For({Access::kReadOnly, false}));
  EXPECT_EQ(Json::parse(a.description)["network"], true);
}

TEST(SandboxTest, SummarySaysTierWritableAndNetwork) {
  Dirs d;
  auto sb = Make(d.MakeSettings(), Support{7, false, "user namespaces switched off"});
  const std::string s = sb->Summary();
  EXPECT_NE(s.find("tier 1"), std::string::npos) << s;
  EXPECT_NE(s.find(d.root + "/ws"), std::string::npos) << s;
  EXPECT_NE(s.find("network: off"), std::string::npos) << s;
  EXPECT_NE(s.find("switched off"), std::string::npos) << s;
  auto none = Make(d.MakeSettings(), Support{0, false, ""});
  EXPECT_NE(none->Summary().find("none: Landlock is not available"), std::string::npos);
}

TEST(SandboxTest, RelativePathsAreRefused) {
  Settings s;
  s.workspace = "relative";
  EXPECT_FALSE(Sandbox::Create(s, Support{}).ok());
  s.workspace = "/";
  EXPECT_FALSE(Sandbox::Create(s, Support{}).ok());
}

TEST(SandboxTest, ReadOnlyProfileWritesOnlyTheTempDirectory) {
  const Support support = Probe();
  if (support.landlock_abi == 0) GTEST_SKIP() << "no Landlock";
  Dirs d;
  auto sb = Make(d.MakeSettings(), support);
  const std::string out = RunConfined(sb->For({Access::kReadOnly, false}),
                                      "echo x > ws-file; echo x > " + d.root + "/tmp/t; echo x > " +
                                          d.root + "/extra/e; cat /etc/hostname",
                                      d.root + "/ws");
  EXPECT_FALSE(Exists(d.root + "/ws/ws-file")) << out;
  EXPECT_FALSE(Exists(d.root + "/extra/e")) << out;
  EXPECT_TRUE(Exists(d.root + "/tmp/t")) << out;
  // The workspace-write profile of the same sandbox writes both.
  RunConfined(sb->For({Access::kWorkspaceWrite, false}),
              "echo x > ws-file; echo x > " + d.root + "/extra/e", d.root + "/ws");
  EXPECT_TRUE(Exists(d.root + "/ws/ws-file"));
  EXPECT_TRUE(Exists(d.root + "/extra/e"));
}

TEST(SandboxTest, NetworkProfileReachesTheHostAndLoopbackAtEveryTier) {
  const Support probed = Probe();
  if (probed.landlock_abi == 0) GTEST_SKIP() << "no Landlock";
  Dirs d;
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&in), sizeof in), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  socklen_t len = sizeof in;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&in), &len);
  const std::string port = std::to_string(ntohs(in.sin_port));
  for (const bool userns : {true, false}) {
    if (userns && !probed.user_namespaces) continue;
    Support support = probed;
    support.user_namespaces = userns;
    auto sb = Make(d.MakeSettings(), support);
    fs::remove(d.root + "/ws/reply");
    const std::string out = RunConfined(
        sb->For({Access::kWorkspaceWrite, true}),
        "python3 -c \"import socket\n"
        "socket.create_connection(('127.0.0.1', " +
            port +
            "), 10).sendall(b'net-on')\n"
            "srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)\n"
            "c = socket.create_connection(srv.getsockname(), 10); conn, _ = srv.accept()\n"
            "c.sendall(b'ping'); open('reply', 'w').write(conn.recv(4).decode())\"",
        d.root + "/ws");
    EXPECT_EQ(testing::ReadFile(d.root + "/ws/reply"), "ping") << "tier " << sb->tier() << out;
    std::string got;
    for (int c; (c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
      char buf[64];
      for (ssize_t n; (n = ::recv(c, buf, sizeof buf, MSG_DONTWAIT)) > 0;) got.append(buf, n);
      ::close(c);
    }
    EXPECT_EQ(got, "net-on") << "tier " << sb->tier() << out;
  }
  ::close(listener);
}

TEST(SandboxTest, MissingProtectedPathsAndRuntimeDirDoNotFailTheSpawn) {
  const Support support = Probe();
  if (support.landlock_abi == 0) GTEST_SKIP() << "no Landlock";
  Dirs d;
  Settings s = d.MakeSettings();
  s.protected_paths.push_back(d.root + "/ws/nope/deeper");
  auto sb = Make(s, support);
  EXPECT_EQ(RunConfined(sb->For({}), "echo ok", d.root + "/ws"), "ok\n");
}

// Started in the parent of $HOME, with TMPDIR=$HOME and $HOME among the
// writable roots: ~/.bashrc stays as it was and ~/.ssh unread, at every
// tier Landlock gives, while the temp directory still works.
TEST(SandboxTest, HomeStaysClosedWhenStartedAboveItOrNamedAsARoot) {
  const Support probed = Probe();
  if (probed.landlock_abi == 0) GTEST_SKIP() << "no Landlock";
  Dirs d;  // under /var/tmp: /tmp is writable in the sandbox
  const std::string home = d.root + "/home/user";
  fs::create_directories(home + "/.ssh");
  testing::WriteFile(home + "/.ssh/id_rsa", "PRIVATE-KEY-MATERIAL\n");
  testing::WriteFile(home + "/.bashrc", "# bashrc\n");
  const std::string stolen = "/tmp/ikigai-stolen-" + fs::path(d.root).filename().string();
  auto env = [&](std::string_view name) -> std::optional<std::string> {
    if (name == "HOME") return home;
    if (name == "TMPDIR") return home;
    return std::nullopt;
  };
  auto settings = DefaultSettings(d.root + "/home", env, {home, d.root + "/home"});
  ASSERT_TRUE(settings.ok()) << settings.error();
  EXPECT_EQ(settings->refused.size(), 4u);  // the start, TMPDIR and both roots
  for (const bool userns : {true, false}) {
    if (userns && !probed.user_namespaces) continue;
    Support support = probed;
    support.user_namespaces = userns;
    auto sb = Make(*settings, support);
    const std::string out =
        RunConfined(sb->For({}),
                    "echo pwned >> " + home + "/.bashrc; echo pwned > " + home + "/planted; cat " +
                        home + "/.ssh/id_rsa > " + stolen + "; echo ok > /tmp/ikigai-ok-" +
                        fs::path(d.root).filename().string(),
                    d.root + "/home");
    EXPECT_EQ(testing::ReadFile(home + "/.bashrc"), "# bashrc\n") << "tier " << sb->tier() << out;
    EXPECT_FALSE(Exists(home + "/planted")) << "tier " << sb->tier() << out;
    EXPECT_EQ(testing::ReadFile(stolen).find("PRIVATE-KEY"), std::string::npos)
        << "tier " << sb->tier() << out;
    EXPECT_TRUE(Exists("/tmp/ikigai-ok-" + fs::path(d.root).filename().string())) << out;
  }
  fs::remove(stolen);
  fs::remove("/tmp/ikigai-ok-" + fs::path(d.root).filename().string());
}

// The host is not dumpable (sandbox/host.h), and a tier 2 child shares its
// memory until exec: for an ordinary user its uid_map would belong to root.
// Spawns from two threads at once, as nobody, must all enter tier 2.
TEST(SandboxTest, Tier2WorksForAnOrdinaryUserWhoseHostIsNotDumpable) {
  const Support support = Probe();
  if (support.landlock_abi == 0 || !support.user_namespaces) {
    GTEST_SKIP() << "tier 2 unavailable here";
  }
  Dirs d;
  ASSERT_EQ(::chmod(d.root.c_str(), 0755), 0);
  ASSERT_EQ(::chown((d.root + "/ws").c_str(), testing::kNobody, testing::kNobody), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(testing::kNobody) != 0 ||
                             ::setuid(testing::kNobody) != 0)) {
      ::_exit(100);
    }
    if (HideHostFromTools() != 0 || ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) ::_exit(101);
    Settings s = d.MakeSettings();
    auto sb = Sandbox::Create(s, support);
    if (!sb.ok()) ::_exit(102);
    const Confinement& c = (*sb)->For({});
    std::atomic<int> failed{0};
    auto spawn_some = [&](int first) {
      std::vector<spawning::Job> jobs;
      for (int i = first; i < first + 4; ++i) {
        spawning::Job job;
        job.spawn.path = "/bin/sh";
        job.spawn.argv = {"sh", "-c", "echo ok > f" + std::to_string(i)};
        job.spawn.env = spawning::EnvironmentWith({{"PATH", "/usr/bin:/bin"}});
        job.spawn.cwd = d.root + "/ws";
        job.spawn.pre_exec = c.pre_exec;
        job.spawn.pre_exec_context = c.context;
        jobs.push_back(std::move(job));
      }
      for (const auto& outcome : spawning::RunAll(jobs)) {
        if (outcome.end != spawning::JobEnd::kExited || outcome.exit_code != 0) ++failed;
      }
    };
    std::thread other(spawn_some, 0);
    spawn_some(4);
    other.join();
    // Still not dumpable once every child is gone.
    ::_exit(failed != 0 ? 103 : ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0 ? 104 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(testing::ReadFile(d.root + "/ws/f" + std::to_string(i)), "ok\n") << i;
  }
}

}  // namespace
}  // namespace ikigai::sandbox
