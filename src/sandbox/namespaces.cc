#include "sandbox/namespaces.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <set>

namespace ikigai::sandbox {
namespace {

#define IKIGAI_CHILD_CODE __attribute__((no_sanitize("address")))

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return {};
  return buf;
}

bool Inside(const std::string& path, const std::string& root) {
  if (root.empty()) return false;
  if (root == "/") return true;
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         path[root.size()] == '/';
}

// The flags of the mount holding `path` that a user namespace may not
// clear on remount.
unsigned long LockedFlags(const std::string& path) {
  struct statvfs sv {};
  if (::statvfs(path.c_str(), &sv) != 0) return 0;
  unsigned long flags = 0;
  if ((sv.f_flag & ST_NOSUID) != 0) flags |= MS_NOSUID;
  if ((sv.f_flag & ST_NODEV) != 0) flags |= MS_NODEV;
  if ((sv.f_flag & ST_NOEXEC) != 0) flags |= MS_NOEXEC;
  if ((sv.f_flag & ST_NOATIME) != 0) flags |= MS_NOATIME;
  if ((sv.f_flag & ST_NODIRATIME) != 0) flags |= MS_NODIRATIME;
  if ((sv.f_flag & ST_RELATIME) != 0) flags |= MS_RELATIME;
  return flags;
}

IKIGAI_CHILD_CODE int WriteProcFile(const char* path, const char* text, std::size_t size) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, text, size);
  const int error = n == static_cast<ssize_t>(size) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return error;
}

IKIGAI_CHILD_CODE int WriteIdMaps(const NamespacePlan& plan) {
  static constexpr char kDeny[] = "deny";
  if (int e = WriteProcFile("/proc/self/setgroups", kDeny, sizeof kDeny - 1); e != 0) return e;
  if (int e = WriteProcFile("/proc/self/uid_map", plan.uid_map.data(), plan.uid_map.size());
      e != 0) {
    return e;
  }
  return WriteProcFile("/proc/self/gid_map", plan.gid_map.data(), plan.gid_map.size());
}

// 1 while a child writes its id maps with the shared memory made dumpable.
std::atomic<int> g_maps_lock{0};
static_assert(std::atomic<int>::is_always_lock_free);
constexpr int kMapsLockSpins = 200000;

// The child shares the host's memory until exec (spawning/spawn.h), and the
// host is not dumpable (host.h): the child's /proc/self files then belong to
// root, and an ordinary user cannot write its own uid_map. So the child makes
// the shared memory dumpable for the three writes and then not again. One
// child at a time (spawns may run on several threads), with a lock in the
// shared memory: a sibling child holds it for a few system calls. The moment
// is safe: a tier 2 tool is in another user namespace and Landlock domain,
// and neither lets it reach the host's /proc files, dumpable or not. Were a
// holder killed in between, the next child takes the lock after a while and
// the host stays dumpable until then.
IKIGAI_CHILD_CODE int WriteIdMapsShared(const NamespacePlan& plan) {
  for (int spins = 0; spins < kMapsLockSpins && g_maps_lock.exchange(1, std::memory_order_acquire);
       ++spins) {
    ::sched_yield();
  }
  const int was = ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  if (was != 1) ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  const int error = WriteIdMaps(plan);
  if (was != 1) ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  g_maps_lock.store(0, std::memory_order_release);
  return error;
}

}  // namespace

std::vector<std::string> HiddenDirectories(const Settings& settings) {
  std::vector<std::string> dirs;
  const std::string candidates[] = {settings.runtime_dir, "/tmp/tmux-" + std::to_string(::getuid()),
                                    "/tmp/.X11-unix"};
  for (const auto& c : candidates) {
    if (c.empty()) continue;
    struct stat st {};
    const std::string real = RealPath(c);
    if (real.empty() || real == "/" || ::stat(real.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      continue;
    }
    if (std::find(dirs.begin(), dirs.end(), real) == dirs.end()) dirs.push_back(real);
  }
  return dirs;
}

std::vector<std::string> HiddenSockets() {
  std::vector<std::string> sockets;
  for (const char* c :
       {"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
        "/run/podman/podman.sock", "/run/dbus/system_bus_socket"}) {
    struct stat st {};
    const std::string real = RealPath(c);
    if (real.empty() || ::stat(real.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (std::find(sockets.begin(), sockets.end(), real) == sockets.end()) sockets.push_back(real);
  }
  return sockets;
}

std::vector<std::string> ExistingProtectedPaths(const Settings& settings) {
  std::vector<std::string> paths;
  for (const auto& p : ProtectedPaths(settings)) {
    const std::string real = RealPath(p);
    if (!real.empty() && real != "/" &&
        std::find(paths.begin(), paths.end(), real) == paths.end()) {
      paths.push_back(real);
    }
  }
  return paths;
}

NamespacePlan PlanNamespaces(const Settings& settings, bool write_access, bool network) {
  NamespacePlan plan;
  plan.unshare_flags = CLONE_NEWUSER | CLONE_NEWNS | (network ? 0 : CLONE_NEWNET);
  plan.uid_map = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1\n";
  plan.gid_map = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1\n";

  const std::vector<std::string> protected_paths = ExistingProtectedPaths(settings);
  if (write_access) {
    // Anchors: directories strictly between a writable root and a
    // protected path.
    std::vector<std::string> roots;
    if (!settings.workspace.empty()) roots.push_back(RealPath(settings.workspace));
    for (const auto& r : settings.extra_writable) roots.push_back(RealPath(r));
    std::set<std::string> anchors;
    for (const auto& p : protected_paths) {
      for (const auto& root : roots) {
        if (!Inside(p, root)) continue;
        for (std::size_t slash = p.rfind('/'); slash != std::string::npos && slash > root.size();
             slash = p.rfind('/', slash - 1)) {
          anchors.insert(p.substr(0, slash));
        }
      }
    }
    std::vector<std::string> ordered(anchors.begin(), anchors.end());  // parents first
    for (const auto& a : ordered) plan.binds.push_back({a, 0});
  }
  // Read-only in both profiles (the read-only profile's Landlock rules
  // already refuse the writes; the binds cost little and keep one shape).
  std::vector<std::string> sorted = protected_paths;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& p : sorted) {
    plan.binds.push_back({p, MS_BIND | MS_REMOUNT | MS_RDONLY | LockedFlags(p)});
  }
  plan.tmpfs_dirs = HiddenDirectories(settings);
  plan.null_files = HiddenSockets();
  plan.loopback = !network;
  std::strncpy(plan.loopback_request.ifr_name, "lo", IFNAMSIZ - 1);
  plan.loopback_request.ifr_flags = IFF_UP | IFF_RUNNING;
  return plan;
}

IKIGAI_CHILD_CODE int EnterNamespaces(const NamespacePlan& plan) {
  const bool root = ::geteuid() == 0;  // asked before the new namespace hides it
  if (::unshare(plan.unshare_flags) != 0) return errno;
  if (int e = root ? WriteIdMaps(plan) : WriteIdMapsShared(plan); e != 0) return e;
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  const BindStep* binds = plan.binds.data();
  for (std::size_t i = 0, n = plan.binds.size(); i < n; ++i) {
    const char* path = binds[i].path.c_str();
    if (::mount(path, path, nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      if (errno == ENOENT) continue;  // gone since the plan; the snapshot check remains
      return errno;
    }
    if (binds[i].remount_flags != 0 &&
        ::mount(nullptr, path, nullptr, binds[i].remount_flags, nullptr) != 0) {
      return errno;
    }
  }
  const std::string* dirs = plan.tmpfs_dirs.data();
  for (std::size_t i = 0, n = plan.tmpfs_dirs.size(); i < n; ++i) {
    if (::mount("tmpfs", dirs[i].c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") !=
            0 &&
        errno != ENOENT) {
      return errno;
    }
  }
  const std::string* files = plan.null_files.data();
  for (std::size_t i = 0, n = plan.null_files.size(); i < n; ++i) {
    if (::mount("/dev/null", files[i].c_str(), nullptr, MS_BIND, nullptr) != 0 && errno != ENOENT) {
      return errno;
    }
  }
  // The working directory was entered before the binds (spawning/spawn.h),
  // so it may be a directory an anchor now covers (the start directory, when
  // its .ikigai/ is protected): relative paths from it would reach the
  // directories below the binds, unprotected. Entered again by its name, it
  // is the one on top. Inside a hidden directory it is gone: the spawn fails.
  char cwd[PATH_MAX];
  if (::syscall(SYS_getcwd, cwd, sizeof cwd) > 0 && cwd[0] == '/' && ::chdir(cwd) != 0) {
    return errno;
  }
  if (plan.loopback) {
    const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return errno;
    ifreq request = plan.loopback_request;
    const int rc = ::ioctl(s, SIOCSIFFLAGS, &request);
    const int error = errno;
    ::close(s);
    if (rc != 0) return error;
  }
  return 0;
}

}  // namespace ikigai::sandbox
