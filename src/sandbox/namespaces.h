// Tier 2 of the sandbox (DECISIONS §6): user, mount and (without network)
// network namespaces, entered by the child just before Landlock.
//
// The parent prepares everything (NamespacePlan); the child unshares, maps
// its own uid and gid to themselves, makes every mount private, and then:
//   - binds each directory between a writable root and a protected path onto
//     itself (an "anchor": a mount point cannot be renamed or removed, so
//     `mv .git elsewhere && mkdir .git` cannot replace the protected hooks);
//   - binds each protected path onto itself read-only, keeping the flags
//     the kernel locks in a user namespace (nosuid, nodev, noexec, atime);
//   - mounts an empty tmpfs over the runtime socket directories and binds
//     /dev/null over well-known host sockets (docker, D-Bus system bus);
//   - enters its working directory again by name, so that it is the
//     directory on top of the binds;
//   - brings loopback up in a new network namespace, so local servers work
//     while nothing leaves the machine.
// The tool is root in its namespace: the seccomp filter refuses the mount
// family so that it cannot undo any of it.
#pragma once

#include <net/if.h>

#include <string>
#include <vector>

#include "sandbox/workspace.h"

namespace ikigai::sandbox {

struct BindStep {
  std::string path;
  unsigned long remount_flags = 0;  // 0: a plain bind (an anchor)
};

struct NamespacePlan {
  int unshare_flags = 0;
  std::string uid_map;
  std::string gid_map;
  std::vector<BindStep> binds;          // in order
  std::vector<std::string> tmpfs_dirs;  // hidden directories
  std::vector<std::string> null_files;  // hidden sockets
  bool loopback = false;
  ifreq loopback_request{};
};

// The host sockets hidden under tier 2, among those that exist.
std::vector<std::string> HiddenDirectories(const Settings& settings);
std::vector<std::string> HiddenSockets();

// Protected paths (ProtectedPaths) that exist now (resolved); the others are
// left to the snapshot check.
std::vector<std::string> ExistingProtectedPaths(const Settings& settings);

NamespacePlan PlanNamespaces(const Settings& settings, bool write_access, bool network);

// The child's step: async-signal-safe. Returns 0 or an errno.
int EnterNamespaces(const NamespacePlan& plan);

}  // namespace ikigai::sandbox
