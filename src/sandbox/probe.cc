#include "sandbox/probe.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "sandbox/landlock.h"

namespace ikigai::sandbox {
namespace {

bool WriteProcFile(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// Tries in a child what tier 2 does; "" when it works, else why not.
std::string TryUserNamespaces() {
  const std::string uid_map = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1";
  const std::string gid_map = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1";
  const pid_t pid = ::fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    // A fork has its own memory, so this changes nothing of the host's: a
    // non-dumpable process's /proc/self files belong to root, and an
    // ordinary user could not write its uid_map (sandbox/host.h).
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) != 0) ::_exit(1);
    if (!WriteProcFile("/proc/self/setgroups", "deny") ||
        !WriteProcFile("/proc/self/uid_map", uid_map) ||
        !WriteProcFile("/proc/self/gid_map", gid_map)) {
      ::_exit(2);
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(3);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  std::string reason = "user namespaces are not available";
  if (WIFEXITED(status)) {
    switch (WEXITSTATUS(status)) {
      case 1:
        reason += " (unshare refused)";
        break;
      case 2:
        reason += " (uid/gid maps refused)";
        break;
      case 3:
        reason += " (mount refused in the new namespace)";
        break;
      default:
        break;
    }
  }
  std::ifstream apparmor("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  std::string value;
  if (apparmor >> value && value == "1") {
    reason += "; AppArmor restricts unprivileged user namespaces";
  }
  return reason;
}

}  // namespace

Support Probe() {
  static std::once_flag once;
  static Support kernel;
  std::call_once(once, [] {
    kernel.landlock_abi = landlock::KernelAbi();
    kernel.no_userns_reason = TryUserNamespaces();
    kernel.user_namespaces = kernel.no_userns_reason.empty();
  });
  Support s = kernel;
  if (const char* cap = std::getenv("IKIGAI_TEST_LANDLOCK_ABI"); cap != nullptr && *cap != '\0') {
    s.landlock_abi = std::min(s.landlock_abi, std::atoi(cap));
  }
  if (const char* no = std::getenv("IKIGAI_TEST_NO_USERNS"); no != nullptr && *no == '1') {
    s.user_namespaces = false;
    s.no_userns_reason = "user namespaces switched off (IKIGAI_TEST_NO_USERNS)";
  }
  return s;
}

}  // namespace ikigai::sandbox
