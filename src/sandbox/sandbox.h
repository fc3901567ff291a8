// The kernel sandbox around every tool process (DECISIONS §6).
//
// A Sandbox is created once from Settings (what is writable, secret,
// protected) and Support (what the kernel offers). For each profile
// (read-only or workspace-write, with or without network) it prepares,
// once and on first use, everything the child needs: the tier 2 namespace
// plan, a Landlock ruleset, a seccomp program. The Confinement's pre_exec
// then only makes system calls, in this order:
//   1. tier 2: user + mount (+ network) namespaces, read-only binds over
//      the protected paths, tmpfs over the runtime socket directories,
//      loopback up (namespaces.h);
//   2. root's capabilities but a few dropped from the bounding set (what exec
//      gives back), the ambient set cleared: no CAP_SYS_PTRACE, so a tool
//      cannot read the host's /proc files (host.h);
//   3. PR_SET_NO_NEW_PRIVS;
//   4. landlock_restrict_self (landlock.h);
//   5. the seccomp filter (seccomp.h).
// Any failure fails the spawn with its errno: a tool never runs unconfined
// by accident.
//
// Tiers: 2 with Landlock and user namespaces; 1 with Landlock alone (no
// namespace hides the host's Unix sockets, so seccomp refuses AF_UNIX
// sockets, network or not; protected paths are left to the snapshot check);
// 0 without Landlock: only no_new_privs, the capabilities and seccomp.
#pragma once

#include <linux/filter.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "sandbox/namespaces.h"
#include "sandbox/probe.h"
#include "sandbox/workspace.h"

namespace ikigai::sandbox {

enum class Access { kReadOnly, kWorkspaceWrite };

struct Profile {
  Access access = Access::kWorkspaceWrite;
  bool network = false;
};

struct Confinement {
  int (*pre_exec)(void*) = nullptr;  // for spawning::SpawnRequest
  void* context = nullptr;
  // The value of IKIGAI_SANDBOX for this profile, compact JSON:
  // {"tier":2,"landlock_abi":7,"access":"workspace-write","writable_roots":[...],
  //  "network":false,"protected":[...]}; with "note" at tier 0 and "error"
  // when the profile could not be prepared (its pre_exec then always fails).
  std::string description;
};

class Sandbox {
 public:
  static Result<std::unique_ptr<Sandbox>, std::string> Create(Settings settings, Support support);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // Prepared on first use for each profile, then reused; thread-safe. The
  // reference stays valid as long as the Sandbox.
  const Confinement& For(Profile profile);

  int tier() const;
  // One human line: the tier, what is writable, readable, the network
  // ("tier 2 (Landlock ABI 7 and namespaces): writable: ...; network: ...").
  std::string Summary() const;
  const Settings& settings() const { return settings_; }
  const Support& support() const { return support_; }
  // What a profile may write (the workspace, extra roots, temp directories).
  std::vector<std::string> WritableRoots(Access access) const;

  // What one profile's pre_exec reads; defined in sandbox.cc.
  struct Prepared;

 private:
  Sandbox(Settings settings, Support support);
  std::unique_ptr<Prepared> Prepare(Profile profile) const;

  Settings settings_;
  Support support_;
  std::mutex mutex_;
  std::map<int, std::unique_ptr<Prepared>> prepared_;  // by profile
};

}  // namespace ikigai::sandbox
