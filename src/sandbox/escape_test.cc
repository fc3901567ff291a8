// The escape battery (issue 9): real processes (/bin/sh, python3, the real
// bash tool, a small C helper) under the real kernel, per tier and Landlock
// ABI, judged by effects outside the child (files, what listeners in this
// process received, whether a sibling process survived), never by exit codes.
// The third runner is the whole product: `ikigai -p --permissions auto`
// against aimock, whose model asks the bash tool to run the case.
// Every escape must fail under the sandbox and succeed without it; every
// piece of normal work must succeed in both. What a mode cannot stop is
// skipped explicitly, with the reason printed.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "providers/testing/aimock_server.h"
#include "sandbox/sandbox.h"
#include "sandbox/snapshot.h"
#include "spawning/run_many.h"
#include "toolkit/json.h"

namespace ikigai::sandbox {
namespace {

namespace fs = std::filesystem;

enum class Runner { kShell, kBashTool, kIkigai };

// The model of the kIkigai runner: one bash call running the case, then "done".
std::string EscapeFixtures(const std::string& script) {
  const toolkit::Json call = {{"id", "call_escape"},
                              {"name", "bash"},
                              {"arguments", {{"command", script}, {"timeout_seconds", 100}}}};
  return toolkit::Json{
      {"fixtures",
       {{{"match", {{"toolCallId", "call_escape"}}}, {"response", {{"content", "done"}}}},
        {{"match", {{"userMessage", "escape"}}}, {"response", {{"toolCalls", {call}}}}}}}}
      .dump();
}

struct Mode {
  const char* name;
  bool bare;            // no sandbox at all
  const char* abi_cap;  // IKIGAI_TEST_LANDLOCK_ABI, or nullptr
  bool no_userns;       // IKIGAI_TEST_NO_USERNS=1
  int want_tier;        // the tier this mode is about
  Runner runner;
  bool network = false;  // the profile with network (sandbox.network for ikigai)
};

// Names the mode in test listings instead of gtest's dump of its bytes.
void PrintTo(const Mode& m, std::ostream* os) { *os << m.name; }

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// A listening socket in this (unconfined) process; Drain() collects what
// clients sent, without blocking: a client that connected and wrote before
// it was reaped has its data queued already.
class Listener {
 public:
  Listener(int domain, int type, const sockaddr* addr, socklen_t len) {
    fd_ = ::socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(::bind(fd_, addr, len), 0) << std::strerror(errno);
    if (type == SOCK_STREAM) {
      EXPECT_EQ(::listen(fd_, 16), 0);
    }
    stream_ = type == SOCK_STREAM;
  }
  ~Listener() { ::close(fd_); }
  int port() const {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    return ntohs(a.sin_port);
  }
  std::string Drain() {
    std::string got;
    char buf[4096];
    if (!stream_) {
      for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) got.append(buf, n);
      return got;
    }
    for (int c; (c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
      for (ssize_t n; (n = ::recv(c, buf, sizeof buf, MSG_DONTWAIT)) > 0;) got.append(buf, n);
      ::close(c);
    }
    return got;
  }

 private:
  int fd_ = -1;
  bool stream_ = true;
};

struct Case {
  std::string name;
  std::string script;  // for /bin/sh
  bool escape;         // must fail under the sandbox (else: must work)
  std::function<bool()> happened;
  // Why the mode cannot stop (or support) it; empty: it must.
  std::function<std::string(int tier, int abi)> skip = [](int, int) { return std::string(); };
  bool protected_path = false;  // below tier 2 the snapshot check must catch it
  // Why it cannot work even without the sandbox here; empty: it must.
  std::function<std::string()> bare_skip = nullptr;
};

class EscapeBattery : public ::testing::TestWithParam<Mode> {
 protected:
  static void SetUpTestSuite() { aimock_.Start(EscapeFixtures("true")); }
  static void TearDownTestSuite() { aimock_.Stop(); }

  void SetUp() override {
    const Mode& m = GetParam();
    ::unsetenv("IKIGAI_TEST_LANDLOCK_ABI");
    ::unsetenv("IKIGAI_TEST_NO_USERNS");
    if (m.abi_cap != nullptr) ::setenv("IKIGAI_TEST_LANDLOCK_ABI", m.abi_cap, 1);
    if (m.no_userns) ::setenv("IKIGAI_TEST_NO_USERNS", "1", 1);
    support_ = Probe();

    // Not under /tmp: a writable root's rights cover everything beneath it,
    // so a secret there could not be hidden.
    char tmpl[] = "/var/tmp/ikigai-escape-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ws_ = root_ + "/ws";
    home_ = root_ + "/home";
    out_ = root_ + "/outside";
    run_ = root_ + "/run";
    tmp_ = root_ + "/tmp";
    for (const auto& d :
         {ws_ + "/.git/hooks", ws_ + "/.ikigai/tools", home_ + "/.ssh", out_, run_, tmp_}) {
      fs::create_directories(d);
    }
    Write(ws_ + "/.git/config", "[core]\n");
    Write(ws_ + "/.git/HEAD", "ref: refs/heads/main\n");
    Write(home_ + "/.ssh/id_rsa", "PRIVATE-KEY-MATERIAL\n");
    fs::create_directories(home_ + "/.ikigai/tools");
    Write(home_ + "/.ikigai/config.json",
          std::string("{\"openai\": {\"api_key\": \"KEY-IN-CONFIG\"}") +
              (m.network ? ", \"sandbox\": {\"network\": true}" : "") + "}\n");
    Write(home_ + "/.ikigai/tools/mine-tool", "#!/bin/sh\necho user-tool-ran\n");
    fs::permissions(home_ + "/.ikigai/tools/mine-tool", fs::perms::owner_all);
    Write(home_ + "/.bashrc", "# bashrc\n");
    for (const char* v : {"victim", "hardlink", "rename", "link", "truncate"}) {
      Write(out_ + "/" + v, "original\n");
    }
    Write(ws_ + "/inside", "inside\n");

    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    tcp_ = std::make_unique<Listener>(AF_INET, SOCK_STREAM, reinterpret_cast<sockaddr*>(&in),
                                      sizeof in);
    udp_ = std::make_unique<Listener>(AF_INET, SOCK_DGRAM, reinterpret_cast<sockaddr*>(&in),
                                      sizeof in);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    std::snprintf(un.sun_path, sizeof un.sun_path, "%s/bus", run_.c_str());
    unix_ = std::make_unique<Listener>(AF_UNIX, SOCK_STREAM, reinterpret_cast<sockaddr*>(&un),
                                       sizeof un);
    std::snprintf(un.sun_path, sizeof un.sun_path, "%s/journal", run_.c_str());
    unix_dgram_ = std::make_unique<Listener>(AF_UNIX, SOCK_DGRAM, reinterpret_cast<sockaddr*>(&un),
                                             sizeof un);
    abstract_name_ =
        "ikigai-escape-" + std::to_string(::getpid()) + fs::path(root_).filename().string();
    sockaddr_un ab{};
    ab.sun_family = AF_UNIX;
    std::memcpy(ab.sun_path + 1, abstract_name_.data(), abstract_name_.size());
    abstract_ = std::make_unique<Listener>(
        AF_UNIX, SOCK_STREAM, reinterpret_cast<sockaddr*>(&ab),
        static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract_name_.size()));
    StartSibling();

    if (!m.bare) {
      Settings s;
      s.workspace = ws_;
      s.temp_dir = tmp_;
      s.secrets = DefaultSecrets(home_);
      s.protected_paths = {ws_ + "/.git/hooks", ws_ + "/.git/config", ws_ + "/.ikigai"};
      s.runtime_dir = run_;
      auto sb = Sandbox::Create(s, support_);
      ASSERT_TRUE(sb.ok()) << sb.error();
      sandbox_ = std::move(*sb);
    }
  }

  void TearDown() override {
    StopSibling();
    std::error_code ignored;
    fs::remove_all(root_, ignored);
    for (const auto& p : cleanup_) fs::remove(p, ignored);
    ::unsetenv("IKIGAI_TEST_LANDLOCK_ABI");
    ::unsetenv("IKIGAI_TEST_NO_USERNS");
  }

  void StartSibling() {
    sibling_ = ::fork();
    if (sibling_ == 0) {
      ::execl("/bin/sleep", "sleep", "600", static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  void StopSibling() {
    if (sibling_ <= 0) return;
    ::kill(sibling_, SIGKILL);
    ::waitpid(sibling_, nullptr, 0);
    sibling_ = -1;
  }
  // Whether the sibling was killed: a SIGKILL sent is pending (or the
  // sibling is a zombie already) until it dies, so only then wait for it.
  bool SiblingDied() {
    const std::string status = Read("/proc/" + std::to_string(sibling_) + "/status");
    auto field = [&](const std::string& name) {
      const auto at = status.find("\n" + name + ":");
      return at == std::string::npos ? std::string() : status.substr(at + name.size() + 2, 20);
    };
    auto kill_pending = [&](const std::string& mask) {
      return std::strtoull(mask.c_str(), nullptr, 16) & (1ULL << (SIGKILL - 1));
    };
    const bool dying = field("State").find('Z') != std::string::npos ||
                       kill_pending(field("SigPnd")) != 0 || kill_pending(field("ShdPnd")) != 0;
    if (!dying) return false;
    ::waitpid(sibling_, nullptr, 0);
    sibling_ = -1;
    StartSibling();
    return true;
  }

  std::string Py(const std::string& name, const std::string& code) {
    const std::string path = root_ + "/" + name + ".py";
    Write(path, code);
    return "python3 " + path;
  }

  // Runs `script` as the mode says, in `cwd` (default: the workspace);
  // returns what the child printed.
  std::string Run(const std::string& script, std::string cwd = "") {
    const Mode& m = GetParam();
    if (cwd.empty()) cwd = ws_;
    if (m.runner == Runner::kIkigai) return RunIkigai(script, cwd);
    spawning::Job job;
    job.timeout = std::chrono::milliseconds(120000);
    std::vector<std::pair<std::string, std::string>> env = {
        {"HOME", home_}, {"TMPDIR", tmp_}, {"PATH", "/usr/bin:/bin"}};
    if (sandbox_) {
      const Confinement& c = sandbox_->For({Access::kWorkspaceWrite, m.network});
      job.spawn.pre_exec = c.pre_exec;
      job.spawn.pre_exec_context = c.context;
      env.emplace_back("IKIGAI_SANDBOX", c.description);
    }
    job.spawn.env = spawning::EnvironmentWith(env);
    job.spawn.cwd = cwd;
    if (m.runner == Runner::kShell) {
      job.spawn.path = "/bin/sh";
      job.spawn.argv = {"sh", "-c", script};
    } else {
      job.spawn.path = IKIGAI_BASH_TOOL;
      job.spawn.argv = {"bash-tool"};
      job.input = toolkit::Json{{"command", script}, {"timeout_seconds", 100}}.dump();
    }
    const auto outcome = spawning::RunAll({job}).front();
    EXPECT_EQ(outcome.end, spawning::JobEnd::kExited) << outcome.spawn_error << outcome.err;
    return outcome.out + outcome.err;
  }

  // Through `ikigai -p` in auto mode (unrestricted when bare), in the
  // workspace, with this test's home, temp and runtime directories; ikigai
  // builds its own sandbox from them, as for a user.
  std::string RunIkigai(const std::string& script, const std::string& cwd) {
    auto server = aimock_.Reset(EscapeFixtures(script));
    EXPECT_TRUE(server) << server.error();
    if (!server) return "";
    spawning::Job job;
    job.timeout = std::chrono::milliseconds(120000);
    job.spawn.path = IKIGAI_BIN;
    job.spawn.argv = {"ikigai", "-p", "escape", "--output", "json"};
    job.spawn.env = spawning::EnvironmentWith(
        {{"HOME", home_},
         {"TMPDIR", tmp_},
         {"XDG_RUNTIME_DIR", run_},
         {"PATH", "/usr/bin:/bin"},
         {"OPENAI_API_KEY", providers::testing::AimockServer::kApiKey},
         {"OPENAI_BASE_URL", (*server)->openai_base_url()},
         {"IKIGAI_PROVIDER", "openai"},
         {"NO_PROXY", "127.0.0.1"},
         {"IKIGAI_PERMISSIONS", GetParam().bare ? "unrestricted" : "auto"}});
    job.spawn.cwd = cwd;
    const auto outcome = spawning::RunAll({job}).front();
    EXPECT_EQ(outcome.end, spawning::JobEnd::kExited) << outcome.spawn_error << outcome.err;
    EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
    return outcome.out + outcome.err;
  }

  std::vector<Case> Cases() {
    const std::string& o = out_;
    const std::string& w = ws_;
    const bool net = GetParam().network;
    const bool through_ikigai = GetParam().runner == Runner::kIkigai;
    auto changed = [](const std::string& path) { return Read(path) != "original\n"; };
    auto need_landlock = [](int tier, int) {
      return tier == 0 ? std::string("tier 0 has no Landlock: files are not confined")
                       : std::string();
    };
    // The host, whose /proc/PID/environ holds the keys: this process, or the
    // ikigai the runner starts, found up the tool's parent chain.
    const std::string host =
        through_ikigai
            ? "host=$$; while [ \"$host\" -gt 1 ] && [ \"$(cat /proc/$host/comm)\" != ikigai ]; do "
              "host=$(sed 's/.*) //' /proc/$host/stat | cut -d' ' -f2); done; "
            : "host=" + std::to_string(::getpid()) + "; ";
    auto host_environ_read = [=, this] {
      const std::string got = Read(w + "/host-environ");
      if (through_ikigai)
        return got.find(providers::testing::AimockServer::kApiKey) != std::string::npos;
      std::string mine = Read("/proc/self/environ");
      std::replace(mine.begin(), mine.end(), '\0', '\n');
      return !got.empty() && got == mine;
    };
    auto host_skip = [=](int tier, int) {
      return tier == 0 && ::geteuid() != 0 && !through_ikigai
                 ? std::string(
                       "tier 0 has no Landlock: only the host's being non-dumpable stops a tool "
                       "of the same user, and this test process is dumpable (ikigai is not)")
                 : std::string();
    };
    auto host_bare_skip = [=] {
      return ::geteuid() != 0 && through_ikigai
                 ? std::string(
                       "ikigai is not dumpable: without CAP_SYS_PTRACE no tool of the same user "
                       "reads its /proc files, sandbox or not")
                 : std::string();
    };
    // Where this executable's ELF header is mapped (its first mapping at
    // offset 0: AddressSanitizer's shadow comes first); ikigai's is looked
    // up in its /proc/PID/maps by the helper.
    std::string first_mapping = "-";
    if (!through_ikigai) {
      const std::string exe = fs::read_symlink("/proc/self/exe").string();
      std::istringstream maps(Read("/proc/self/maps"));
      for (std::string line; std::getline(maps, line);) {
        std::istringstream fields(line);
        std::string range, perms, offset, dev, inode, file;
        fields >> range >> perms >> offset >> dev >> inode >> file;
        if (file == exe && std::stoul(offset, nullptr, 16) == 0) {
          first_mapping = range.substr(0, range.find('-'));
          break;
        }
      }
    }
    const std::string shm = "/dev/shm/ikigai-escape-" + fs::path(root_).filename().string();
    const std::string slash_tmp = "/tmp/ikigai-escape-" + fs::path(root_).filename().string();
    cleanup_ = {shm, slash_tmp};
    std::vector<Case> cases = {
        // Escapes.
        {"write an absolute path outside", "echo pwned > " + o + "/abs", true,
         [=, this] { return Exists(o + "/abs"); }, need_landlock},
        {"write outside through ..", "echo pwned > ../outside/dotdot", true,
         [=, this] { return Exists(o + "/dotdot"); }, need_landlock},
        {"write through a planted symlink", "ln -s " + o + " link && echo pwned > link/sym", true,
         [=, this] { return Exists(o + "/sym"); }, need_landlock},
        {"write through a hard link", "ln " + o + "/hardlink hl; echo pwned >> hl", true,
         [=, this] { return changed(o + "/hardlink"); }, need_landlock},
        {"write through /proc/self/cwd", "cd " + o + " && echo pwned > /proc/self/cwd/proc", true,
         [=, this] { return Exists(o + "/proc"); }, need_landlock},
        {"write through /proc/self/root", "echo pwned > /proc/self/root" + o + "/root", true,
         [=, this] { return Exists(o + "/root"); }, need_landlock},
        {"append to ~/.bashrc", "echo pwned >> \"$HOME/.bashrc\"", true,
         [=, this] { return Read(home_ + "/.bashrc") != "# bashrc\n"; }, need_landlock},
        {"overwrite an outside file", "echo pwned > " + o + "/victim", true,
         [=, this] { return changed(o + "/victim"); }, need_landlock},
        {"truncate an outside file", "truncate -s 0 " + o + "/truncate", true,
         [=, this] { return changed(o + "/truncate"); },
         [](int tier, int abi) {
           if (tier == 0) return std::string("tier 0 has no Landlock");
           return abi < 3 ? std::string("Landlock ABI < 3 cannot refuse truncate(2)")
                          : std::string();
         }},
        {"rename an outside file in", "mv " + o + "/rename " + w + "/renamed", true,
         [=, this] { return !Exists(o + "/rename") || Exists(w + "/renamed"); }, need_landlock},
        {"link an outside file in", "ln " + o + "/link " + w + "/linked", true,
         [=, this] { return Exists(w + "/linked"); }, need_landlock},
        {"python writes outside", Py("pywrite", "open('" + o + "/py', 'w').write('pwned')"), true,
         [=, this] { return Exists(o + "/py"); }, need_landlock},
        {"read ~/.ssh/id_rsa", "cat \"$HOME/.ssh/id_rsa\" > stolen", true,
         [=, this] { return Read(w + "/stolen").find("PRIVATE-KEY") != std::string::npos; },
         need_landlock},
        {"read ~/.ikigai/config.json", "cat \"$HOME/.ikigai/config.json\" > stolen-config", true,
         [=, this] { return Read(w + "/stolen-config").find("KEY-IN") != std::string::npos; },
         need_landlock},
        {"write .git/hooks",
         "umount " + w + "/.git/hooks 2>/dev/null; echo pwned > .git/hooks/pre-commit", true,
         [=, this] { return Exists(w + "/.git/hooks/pre-commit"); }, nullptr, true},
        {"write .git/config", "echo '[core] hooksPath = /x' >> .git/config", true,
         [=, this] { return Read(w + "/.git/config") != "[core]\n"; }, nullptr, true},
        {"write .ikigai/tools", "printf '#!/bin/sh\\n' > .ikigai/tools/x-tool", true,
         [=, this] { return Exists(w + "/.ikigai/tools/x-tool"); }, nullptr, true},
        {"replace .git to plant hooks",
         "mv .git .git-old && mkdir -p .git/hooks && echo pwned > .git/hooks/post-checkout", true,
         [=, this] { return Exists(w + "/.git/hooks/post-checkout"); }, nullptr, true},
        {"read the host's /proc/PID/environ",
         host + "tr '\\0' '\\n' < /proc/$host/environ > host-environ", true, host_environ_read,
         host_skip, false, host_bare_skip},
        {"read the host's /proc/PID/mem",
         host + IKIGAI_ESCAPE_HELPER + " proc_mem $host " + first_mapping + " " + w + "/host-mem",
         true, [=, this] { return Read(w + "/host-mem").find("7f454c46") != std::string::npos; },
         host_skip, false, host_bare_skip},
        // With network, the host's network is the point (loopback included).
        {"TCP to a host listener",
         Py("tcp", "import socket\ns = socket.create_connection(('127.0.0.1', " +
                       std::to_string(tcp_->port()) + "), 10)\ns.sendall(b'tcp-escape')\n"),
         !net, [this] { return tcp_->Drain().find("tcp-escape") != std::string::npos; }},
        {"UDP to a host listener",
         Py("udp",
            "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto("
            "b'udp-escape', ('127.0.0.1', " +
                std::to_string(udp_->port()) + "))\n"),
         !net, [this] { return udp_->Drain().find("udp-escape") != std::string::npos; }},
        // glibc asks nscd and systemd-resolved over Unix sockets first; refused,
        // it must fall back to /etc/hosts and DNS.
        {"resolve localhost and connect to a host listener",
         Py("resolve", "import socket\ns = socket.create_connection(('localhost', " +
                           std::to_string(tcp_->port()) + "), 10)\ns.sendall(b'resolved-host')\n"),
         !net, [this] { return tcp_->Drain().find("resolved-host") != std::string::npos; }},
        {"connect to a host Unix socket in the runtime dir",
         Py("unix", "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('" + run_ +
                        "/bus')\ns.sendall(b'unix-escape')\n"),
         true, [this] { return unix_->Drain().find("unix-escape") != std::string::npos; }},
        {"send a datagram to a host Unix socket",
         Py("dgram",
            "import socket\n"
            "for make in (lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM),\n"
            "             lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]):\n"
            "    try:\n"
            "        make().sendto(b'dgram-escape', '" +
                run_ +
                "/journal')\n"
                "    except OSError as e:\n"
                "        print(e)\n"),
         true, [this] { return unix_dgram_->Drain().find("dgram-escape") != std::string::npos; }},
        {"connect to a host abstract Unix socket",
         Py("abstract", "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('\\0" +
                            abstract_name_ + "')\ns.sendall(b'abstract-escape')\n"),
         true, [this] { return abstract_->Drain().find("abstract-escape") != std::string::npos; },
         [=](int tier, int abi) {
           return net && tier == 2 && abi < 6
                      ? std::string(
                            "with network at tier 2 abstract sockets are shared with the host "
                            "below Landlock ABI 6")
                      : std::string();
         }},
        {"io_uring", std::string(IKIGAI_ESCAPE_HELPER) + " io_uring " + w + "/io_uring", true,
         [=, this] { return Exists(w + "/io_uring"); }},
        {"ptrace a sibling",
         std::string(IKIGAI_ESCAPE_HELPER) + " ptrace " + std::to_string(sibling_) + " " + w +
             "/ptrace",
         true, [=, this] { return Exists(w + "/ptrace"); }},
        {"read a sibling's memory",
         std::string(IKIGAI_ESCAPE_HELPER) + " process_vm " + std::to_string(sibling_) + " " + w +
             "/process_vm",
         true, [=, this] { return Exists(w + "/process_vm"); }},
        {"signal a sibling", "kill -KILL " + std::to_string(sibling_), true,
         [this] { return SiblingDied(); },
         [](int tier, int abi) {
           if (tier == 0) return std::string("tier 0 has no Landlock scopes");
           return abi < 6 ? std::string("signal scoping needs Landlock ABI 6") : std::string();
         }},
        // Normal work.
        {"read /etc/hostname", "cat /etc/hostname > hostname", false,
         [=, this] {
           return !Read(w + "/hostname").empty() && Read(w + "/hostname") == Read("/etc/hostname");
         }},
        {"list and read the home directory", "ls -a \"$HOME\" > ls && cat \"$HOME/.bashrc\" >> ls",
         false,
         [=, this] {
           const std::string ls = Read(w + "/ls");
           return ls.find(".bashrc") != std::string::npos && ls.find(".ssh") != std::string::npos &&
                  ls.find("# bashrc") != std::string::npos;
         }},
        {"run a user tool from ~/.ikigai/tools", "\"$HOME/.ikigai/tools/mine-tool\" > mine", false,
         [=, this] { return Read(w + "/mine") == "user-tool-ran\n"; }},
        {"write, rename and remove in the workspace",
         "mkdir -p sub && echo ok > sub/a && mv sub/a b && cp b c && rm c && ln b d && mv inside "
         "sub/inside",
         false,
         [=, this] {
           return Read(w + "/b") == "ok\n" && Exists(w + "/d") && Exists(w + "/sub/inside");
         }},
        {"write the temp dir, /tmp and /dev/shm",
         "echo ok > \"$TMPDIR/t\" && echo ok > " + slash_tmp + " && echo ok > " + shm +
             " && echo ok > /dev/null",
         false, [=, this] { return Exists(tmp_ + "/t") && Exists(slash_tmp) && Exists(shm); }},
        {"python multiprocessing",
         Py("mp",
            "import multiprocessing\nif __name__ == '__main__':\n"
            "    with multiprocessing.Pool(2) as p:\n"
            "        r = sum(p.map(abs, [-1, -2, 3]))\n"
            "    open('" +
                w + "/mp', 'w').write(str(r))\n"),
         false, [=, this] { return Read(w + "/mp") == "6"; }},
        {"a server on loopback inside",
         Py("loopback",
            "import socket\nsrv = socket.socket()\nsrv.bind(('127.0.0.1', 0))\n"
            "srv.listen(1)\n"
            "c = socket.create_connection(srv.getsockname(), 10)\n"
            "conn, _ = srv.accept()\nc.sendall(b'ping')\n"
            "conn.sendall(conn.recv(4).upper())\n"
            "open('" +
                w + "/loopback', 'w').write(c.recv(4).decode())\n"),
         false, [=, this] { return Read(w + "/loopback") == "PING"; },
         [=](int tier, int) {
           return tier < 2 && !net ? std::string(
                                         "below tier 2 a profile without network has no "
                                         "network sockets (the Net modes run it)")
                                   : std::string();
         }},
    };
    return cases;
  }

  static inline providers::testing::SuiteAimock aimock_;
  Support support_;
  std::unique_ptr<Sandbox> sandbox_;
  std::string root_, ws_, home_, out_, run_, tmp_, abstract_name_;
  std::unique_ptr<Listener> tcp_, udp_, unix_, unix_dgram_, abstract_;
  pid_t sibling_ = -1;
  std::vector<std::string> cleanup_;
};

TEST_P(EscapeBattery, EscapesFailAndNormalWorkWorks) {
  const Mode& m = GetParam();
  const int tier = sandbox_ ? sandbox_->tier() : -1;
  if (!m.bare) {
    if (m.want_tier == 2 && !support_.user_namespaces) {
      GTEST_SKIP() << "tier 2 unavailable: " << support_.no_userns_reason;
    }
    if (m.want_tier >= 1 && support_.landlock_abi == 0) GTEST_SKIP() << "no Landlock";
    ASSERT_EQ(tier, m.want_tier);
    if (m.abi_cap != nullptr) {
      ASSERT_LE(support_.landlock_abi, std::atoi(m.abi_cap));
    }
  }
  std::cout << "mode " << m.name << ": tier " << tier << ", Landlock ABI "
            << (m.bare ? 0 : support_.landlock_abi) << "\n";
  const std::vector<std::string> protected_paths = {ws_ + "/.git/hooks", ws_ + "/.git/config",
                                                    ws_ + "/.ikigai"};
  int skipped = 0;
  for (const Case& c : Cases()) {
    if (m.bare && c.bare_skip) {
      if (const std::string why = c.bare_skip(); !why.empty()) {
        std::cout << "  SKIPPED for this mode: " << c.name << " (" << why << ")\n";
        ++skipped;
        continue;
      }
    }
    if (!m.bare && c.skip) {
      if (const std::string why = c.skip(tier, support_.landlock_abi); !why.empty()) {
        std::cout << "  SKIPPED for this mode: " << c.name << " (" << why << ")\n";
        ++skipped;
        Run(c.script);  // still run: normal work must not break the rest
        continue;
      }
    }
    const ProtectedSnapshot before = TakeSnapshot(protected_paths);
    const std::string output = Run(c.script);
    const bool happened = c.happened();
    const auto changes = ChangedPaths(before, TakeSnapshot(protected_paths));
    if (m.bare) {
      EXPECT_TRUE(happened) << c.name << " should work without the sandbox:\n" << output;
    } else if (!c.escape) {
      EXPECT_TRUE(happened) << c.name << " should work in the sandbox:\n" << output;
    } else if (c.protected_path && tier < 2) {
      // No bind mount below tier 2: the snapshot check must see it.
      EXPECT_FALSE(changes.empty()) << c.name << ": the snapshot check missed it";
      if (m.runner == Runner::kIkigai) {
        EXPECT_NE(output.find("protected_paths_changed"), std::string::npos)
            << c.name << ": ikigai did not report it:\n"
            << output;
      }
      std::cout << "  caught by the snapshot check: " << c.name << "\n";
    } else {
      EXPECT_FALSE(happened) << c.name << " escaped the sandbox:\n" << output;
      if (!happened && m.runner != Runner::kShell && c.name == "write an absolute path outside") {
        EXPECT_NE(output.find("sandbox_hint"), std::string::npos) << output;
      }
    }
  }
  ::testing::Test::RecordProperty("skipped_cases", skipped);
}

// The git directories below the top level's (submodules, nested ones, a
// submodule named with a slash, linked worktrees, config.worktree) and the
// start directory's .ikigai/ (project tools load from there) are protected
// like .git/hooks: at tier 2 the write fails, below it the check reports it.
// What did not exist when the sandbox was built (a .ikigai/ created in the
// start directory, a submodule added since) cannot be bound read-only, and
// must be reported at every tier. The sandbox is built from the start
// directory as ikigai builds it (DefaultSettings).
TEST_P(EscapeBattery, GitDirsBelowTheTopAndTheStartDirectorysIkigaiAreProtected) {
  const Mode& m = GetParam();
  if (!m.bare) {
    if (m.want_tier == 2 && !support_.user_namespaces) {
      GTEST_SKIP() << "tier 2 unavailable: " << support_.no_userns_reason;
    }
    if (m.want_tier >= 1 && support_.landlock_abi == 0) GTEST_SKIP() << "no Landlock";
  }
  const std::string git = ws_ + "/.git";
  const std::vector<std::string> module_dirs = {
      git + "/modules/lib", git + "/modules/lib/modules/inner", git + "/modules/libs/deep"};
  for (const auto& dir : module_dirs) {
    fs::create_directories(dir + "/hooks");
    Write(dir + "/HEAD", "ref: refs/heads/main\n");
    Write(dir + "/config", "[core]\n");
  }
  fs::create_directories(git + "/worktrees/wt1");
  Write(git + "/worktrees/wt1/HEAD", "ref: refs/heads/wt1\n");
  Write(git + "/worktrees/wt1/commondir", "../..\n");
  Write(git + "/worktrees/wt1/config.worktree", "[core]\n");
  Write(git + "/config.worktree", "[core]\n");
  fs::create_directories(ws_ + "/sub/.ikigai/tools");
  fs::create_directories(ws_ + "/fresh");

  struct ProtectedCase {
    std::string name;
    std::string start;  // the start directory, below the workspace
    std::string script;
    std::function<bool()> happened;
    bool new_path;  // did not exist when the sandbox was built
  };
  auto appended = [](const std::string& path) { return Read(path) != "[core]\n"; };
  const std::string append = " && echo '[core] hooksPath = /x' >> ";
  const std::vector<ProtectedCase> cases = {
      {"write a submodule's hooks", "sub",
       "echo pwned > " + git + "/modules/lib/hooks/post-checkout",
       [=] { return Exists(git + "/modules/lib/hooks/post-checkout"); }, false},
      {"append to a submodule's config", "sub", "true" + append + git + "/modules/lib/config",
       [=] { return appended(git + "/modules/lib/config"); }, false},
      {"write a nested submodule's hooks", "sub",
       "echo pwned > " + git + "/modules/lib/modules/inner/hooks/pre-commit",
       [=] { return Exists(git + "/modules/lib/modules/inner/hooks/pre-commit"); }, false},
      {"append to a nested submodule's config", "sub",
       "true" + append + git + "/modules/lib/modules/inner/config",
       [=] { return appended(git + "/modules/lib/modules/inner/config"); }, false},
      {"append to the config of a submodule named a/b", "sub",
       "true" + append + git + "/modules/libs/deep/config",
       [=] { return appended(git + "/modules/libs/deep/config"); }, false},
      {"append to a linked worktree's config.worktree", "sub",
       "true" + append + git + "/worktrees/wt1/config.worktree",
       [=] { return appended(git + "/worktrees/wt1/config.worktree"); }, false},
      {"append to .git/config.worktree", "sub", "true" + append + git + "/config.worktree",
       [=] { return appended(git + "/config.worktree"); }, false},
      {"write the start directory's .ikigai/tools", "sub",
       "printf '#!/bin/sh\\n' > .ikigai/tools/x-tool",
       [this] { return Exists(ws_ + "/sub/.ikigai/tools/x-tool"); }, false},
      {"create the start directory's .ikigai/tools", "fresh",
       "mkdir -p .ikigai/tools && printf '#!/bin/sh\\n' > .ikigai/tools/x-tool",
       [this] { return Exists(ws_ + "/fresh/.ikigai/tools/x-tool"); }, true},
      {"plant a hook in a submodule added since", "fresh",
       "mkdir -p " + git + "/modules/new/hooks && echo ref > " + git +
           "/modules/new/HEAD && echo pwned > " + git + "/modules/new/hooks/post-checkout",
       [=] { return Exists(git + "/modules/new/hooks/post-checkout"); }, true},
  };
  std::string built_for;
  Settings settings;
  for (const ProtectedCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string start = ws_ + "/" + c.start;
    if (built_for != c.start) {  // what ikigai started there would protect
      auto made =
          DefaultSettings(start, [this](std::string_view name) -> std::optional<std::string> {
            if (name == "HOME") return home_;
            if (name == "TMPDIR") return tmp_;
            if (name == "XDG_RUNTIME_DIR") return run_;
            return std::nullopt;
          });
      ASSERT_TRUE(made.ok()) << made.error();
      settings = *made;
      built_for = c.start;
      if (!m.bare) {
        auto sb = Sandbox::Create(settings, support_);
        ASSERT_TRUE(sb.ok()) << sb.error();
        sandbox_ = std::move(*sb);
        ASSERT_EQ(sandbox_->tier(), m.want_tier);
      }
    }
    const ProtectedSnapshot before = TakeSnapshot(ProtectedPaths(settings));
    const std::string output = Run(c.script, start);
    const bool happened = c.happened();
    const bool reported =
        m.runner == Runner::kIkigai
            ? output.find("protected_paths_changed") != std::string::npos
            : !ChangedPaths(before, TakeSnapshot(ProtectedPaths(settings))).empty();
    if (m.bare) {
      EXPECT_TRUE(happened) << "should work without the sandbox:\n" << output;
    } else if (c.new_path || sandbox_->tier() < 2) {
      EXPECT_TRUE(reported) << "the change was not reported:\n" << output;
    } else {
      EXPECT_FALSE(happened) << "written at tier 2:\n" << output;
    }
  }
}

const Mode kModes[] = {
    {"Bare_Shell", true, nullptr, false, -1, Runner::kShell},
    {"Bare_BashTool", true, nullptr, false, -1, Runner::kBashTool},
    {"Tier2_KernelAbi_Shell", false, nullptr, false, 2, Runner::kShell},
    {"Tier2_KernelAbi_BashTool", false, nullptr, false, 2, Runner::kBashTool},
    {"Tier2_Abi2_Shell", false, "2", false, 2, Runner::kShell},
    {"Tier1_KernelAbi_Shell", false, nullptr, true, 1, Runner::kShell},
    {"Tier1_KernelAbi_BashTool", false, nullptr, true, 1, Runner::kBashTool},
    {"Tier1_Abi2_Shell", false, "2", true, 1, Runner::kShell},
    {"Tier1_Abi1_Shell", false, "1", true, 1, Runner::kShell},
    {"Tier0_NoLandlock_Shell", false, "0", false, 0, Runner::kShell},
    // ikigai -p: unrestricted, then auto per tier (auto refuses to start
    // without Landlock: oneshot_test.cc checks that).
    {"Bare_Ikigai", true, nullptr, false, -1, Runner::kIkigai},
    {"Tier2_KernelAbi_Ikigai", false, nullptr, false, 2, Runner::kIkigai},
    {"Tier2_Abi2_Ikigai", false, "2", false, 2, Runner::kIkigai},
    {"Tier1_KernelAbi_Ikigai", false, nullptr, true, 1, Runner::kIkigai},
    // With network (sandbox.network, or an openWorldHint tool): the host's
    // network works, its Unix sockets still do not.
    {"Tier2_KernelAbi_Net_Shell", false, nullptr, false, 2, Runner::kShell, true},
    {"Tier2_Abi2_Net_Shell", false, "2", false, 2, Runner::kShell, true},
    {"Tier1_KernelAbi_Net_Shell", false, nullptr, true, 1, Runner::kShell, true},
    {"Tier1_KernelAbi_Net_BashTool", false, nullptr, true, 1, Runner::kBashTool, true},
    {"Tier1_Abi2_Net_Shell", false, "2", true, 1, Runner::kShell, true},
    {"Tier2_KernelAbi_Net_Ikigai", false, nullptr, false, 2, Runner::kIkigai, true},
    {"Tier1_KernelAbi_Net_Ikigai", false, nullptr, true, 1, Runner::kIkigai, true},
};

INSTANTIATE_TEST_SUITE_P(Modes, EscapeBattery, ::testing::ValuesIn(kModes),
                         [](const ::testing::TestParamInfo<Mode>& p) {
                           return std::string(p.param.name);
                         });

}  // namespace
}  // namespace ikigai::sandbox
