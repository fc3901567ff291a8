#include "sandbox/sandbox.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "sandbox/landlock.h"
#include "sandbox/seccomp.h"

namespace ikigai::sandbox {
namespace {

constexpr const char* kDevices[] = {"/dev/null",   "/dev/zero",    "/dev/full",
                                    "/dev/random", "/dev/urandom", "/dev/tty"};

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "nothing" : out;
}

void AddUnique(std::vector<std::string>& list, const std::string& path) {
  if (!path.empty() && std::find(list.begin(), list.end(), path) == list.end()) {
    list.push_back(path);
  }
}

int Key(Profile p) { return (p.access == Access::kWorkspaceWrite ? 2 : 0) | (p.network ? 1 : 0); }

// What a tool run by root keeps of root's capabilities: Docker's default set
// for a container's root, less MKNOD (a block device made in the workspace
// would read the raw disk past Landlock), NET_RAW (packet sockets see the
// host's traffic), SETFCAP and SETPCAP. Files (CHOWN, DAC_OVERRIDE, FOWNER,
// FSETID), SETUID and SETGID (test suites drop privileges) and KILL (their
// children after that) keep root's usual work working. Everything else goes,
// SYS_PTRACE first of all: with it a root tool reads the host's
// /proc/PID/environ and mem whatever the host's dumpable state. Without it,
// and lacking some of the host's capabilities, it fails the kernel's
// ptrace_may_access against the host.
constexpr int kKeptCapabilities[] = {
    CAP_CHOWN,  CAP_DAC_OVERRIDE, CAP_FOWNER,           CAP_FSETID,     CAP_KILL,
    CAP_SETGID, CAP_SETUID,       CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT, CAP_AUDIT_WRITE};

// The capabilities the pre-exec step drops, up to the kernel's last (a new
// user namespace starts with them all, so the host's own bounding set says
// nothing), SETPCAP last since dropping needs it.
std::vector<int> CapabilitiesToDrop() {
  int last = 63;  // past the kernel's last, PR_CAPBSET_DROP says EINVAL
  std::ifstream("/proc/sys/kernel/cap_last_cap") >> last;
  std::vector<int> caps;
  for (int cap = 0; cap <= last && cap < 64; ++cap) {
    if (cap != CAP_SETPCAP && std::find(std::begin(kKeptCapabilities), std::end(kKeptCapabilities),
                                        cap) == std::end(kKeptCapabilities)) {
      caps.push_back(cap);
    }
  }
  caps.push_back(CAP_SETPCAP);
  return caps;
}

}  // namespace

struct Sandbox::Prepared {
  Confinement confinement;
  int failure = 0;  // an errno every spawn fails with
  bool namespaces = false;
  NamespacePlan plan;
  UniqueFd ruleset;
  std::vector<sock_filter> filter;
  sock_fprog program{};
  std::vector<int> drop_caps;  // from the bounding set, SETPCAP last
};

namespace {

// The child's step (see sandbox.h): system calls only.
__attribute__((no_sanitize("address"))) int Confine(void* context);

}  // namespace

Sandbox::Sandbox(Settings settings, Support support)
    : settings_(std::move(settings)), support_(std::move(support)) {}

Sandbox::~Sandbox() = default;

Result<std::unique_ptr<Sandbox>, std::string> Sandbox::Create(Settings settings, Support support) {
  auto absolute = [](const std::string& p) { return !p.empty() && p[0] == '/'; };
  if (!settings.workspace.empty() && !absolute(settings.workspace)) {
    return Err("sandbox: the workspace must be an absolute path: " + settings.workspace);
  }
  if (settings.workspace == "/") return Err(std::string("sandbox: the workspace cannot be /"));
  if (settings.temp_dir.empty()) settings.temp_dir = "/tmp";
  for (const auto* list :
       {&settings.extra_writable, &settings.secrets, &settings.protected_paths}) {
    for (const auto& p : *list) {
      if (!absolute(p)) return Err("sandbox: not an absolute path: " + p);
    }
  }
  if (!absolute(settings.temp_dir))
    return Err("sandbox: TMPDIR is not absolute: " + settings.temp_dir);
  return std::unique_ptr<Sandbox>(new Sandbox(std::move(settings), std::move(support)));
}

int Sandbox::tier() const {
  if (support_.landlock_abi <= 0) return 0;
  return support_.user_namespaces ? 2 : 1;
}

std::vector<std::string> Sandbox::WritableRoots(Access access) const {
  std::vector<std::string> roots;
  if (access == Access::kWorkspaceWrite) {
    AddUnique(roots, settings_.workspace);
    for (const auto& r : settings_.extra_writable) AddUnique(roots, r);
  }
  AddUnique(roots, settings_.temp_dir);
  AddUnique(roots, "/tmp");
  if (access == Access::kWorkspaceWrite) AddUnique(roots, "/dev/shm");
  return roots;
}

std::unique_ptr<Sandbox::Prepared> Sandbox::Prepare(Profile profile) const {
  auto p = std::make_unique<Prepared>();
  const bool network = profile.network || settings_.network;
  const bool write = profile.access == Access::kWorkspaceWrite;
  const int t = tier();
  const std::vector<std::string> roots = WritableRoots(profile.access);

  std::string error;
  if (t == 2) {
    p->namespaces = true;
    p->plan = PlanNamespaces(settings_, write, network);
  }
  if (t >= 1) {
    landlock::RulesetSpec spec;
    spec.abi = support_.landlock_abi;
    spec.writable = roots;
    spec.devices.assign(std::begin(kDevices), std::end(kDevices));
    spec.secrets = settings_.secrets;
    spec.deny_tcp = !network && t < 2;
    auto ruleset = landlock::BuildRuleset(spec);
    if (ruleset) {
      p->ruleset = std::move(*ruleset);
    } else {
      error = ruleset.error();
      p->failure = ENOTRECOVERABLE;
    }
  }
  seccomp::FilterSpec filter;
  filter.refuse_inet_sockets = !network && t < 2;
  // Below tier 2 nothing hides the host's Unix sockets, network or not.
  filter.refuse_unix_sockets = t < 2;
  filter.refuse_connect = !network && t < 2;
  filter.refuse_mount = t == 2;
  p->filter = seccomp::BuildFilter(filter);
  p->program.len = static_cast<unsigned short>(p->filter.size());
  p->program.filter = p->filter.data();
  p->drop_caps = CapabilitiesToDrop();

  nlohmann::ordered_json d = {{"tier", t},
                              {"landlock_abi", support_.landlock_abi},
                              {"access", write ? "workspace-write" : "read-only"},
                              {"writable_roots", roots},
                              {"network", network},
                              {"protected", ProtectedPaths(settings_)}};
  if (t == 0) {
    d["note"] =
        "no Landlock: files and network are not confined; only no_new_privs and seccomp apply";
  }
  if (!error.empty()) d["error"] = error;
  p->confinement.description = d.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  p->confinement.pre_exec = Confine;
  p->confinement.context = p.get();
  return p;
}

const Confinement& Sandbox::For(Profile profile) {
  std::lock_guard lock(mutex_);
  auto& slot = prepared_[Key(profile)];
  if (!slot) slot = Prepare(profile);
  return slot->confinement;
}

std::string Sandbox::Summary() const {
  const int t = tier();
  if (t == 0) {
    return "none: Landlock is not available, so tools run with your full rights (only "
           "no_new_privs and seccomp apply)";
  }
  std::string s = "tier " + std::to_string(t) + " (Landlock ABI " +
                  std::to_string(support_.landlock_abi) +
                  (t == 2 ? " and namespaces" : ", " + support_.no_userns_reason) +
                  "): writable: " + Joined(WritableRoots(Access::kWorkspaceWrite)) +
                  "; readable: everything but";
  std::vector<std::string> secrets;
  for (const auto& secret : settings_.secrets) {
    struct stat st {};
    if (::lstat(secret.c_str(), &st) == 0) secrets.push_back(secret);
  }
  s += secrets.empty() ? " secrets (none present)" : " " + Joined(secrets);
  // The workspace's own protected paths by name; those of submodules and
  // linked worktrees (there may be hundreds) by number.
  Settings own = settings_;
  own.git_dirs.clear();
  const std::vector<std::string> protected_paths = ExistingProtectedPaths(own);
  const std::size_t nested = ExistingProtectedPaths(settings_).size() - protected_paths.size();
  if (!protected_paths.empty()) {
    s += t == 2 ? "; read-only: " : "; checked after each writing call: ";
    s += Joined(protected_paths);
    if (nested > 0) {
      s +=
          ", and " + std::to_string(nested) + " hooks and config files of submodules and worktrees";
    }
  }
  s += settings_.network ? "; network: on"
                         : (t == 2 ? "; network: off (loopback only)" : "; network: off");
  return s;
}

namespace {

// Clears the ambient set and, for root, drops `caps` from the bounding set
// (what exec gives back to root). A process that is not root (in its user
// namespace: the host's uid at tier 2) gets no capabilities at exec anyway
// (no ambient set, and no_new_privs ignores file capabilities), and each drop
// commits new credentials (about 1.5 us), so it is spared them. Dropping
// needs CAP_SETPCAP, so it runs after the namespaces (whose binds and
// loopback need the capabilities the new user namespace gives), and SETPCAP
// comes last in `caps`; root without it fails the spawn.
__attribute__((no_sanitize("address"))) int DropCapabilities(const int* caps, std::size_t n) {
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return errno;
  }
  if (::geteuid() != 0) return 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (::prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0) != 0 && errno != EINVAL) return errno;
  }
  return 0;
}

__attribute__((no_sanitize("address"))) int Confine(void* context) {
  const auto* p = static_cast<const Sandbox::Prepared*>(context);
  if (p->failure != 0) return p->failure;
  if (p->namespaces) {
    if (const int e = EnterNamespaces(p->plan); e != 0) return e;
  }
  if (const int e = DropCapabilities(p->drop_caps.data(), p->drop_caps.size()); e != 0) return e;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (p->ruleset.valid()) {
    if (const int e = landlock::RestrictSelf(p->ruleset.get()); e != 0) return e;
  }
  return seccomp::Install(&p->program);
}

}  // namespace

}  // namespace ikigai::sandbox
