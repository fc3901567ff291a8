// Landlock, at whatever ABI the kernel offers (DECISIONS §6).
//
// Debian 12's <linux/landlock.h> stops at ABI 2, so the structures, system
// call numbers and the rights of ABI 3 to 6 are defined here. A ruleset is
// built once in the parent (BuildRuleset) and only applied in the child
// (landlock_restrict_self on its descriptor).
//
// Landlock grants, it cannot deny: the rights of a path are the union of the
// rules on it and on every directory above it. So "everything readable but
// the secrets" is built from siblings: for each directory above a secret,
// each of its entries that is neither a secret nor above one gets the read
// rights, and the directory itself only READ_DIR (so `ls ~` works; the names
// inside a secret directory are not listed, as it gets no rule at all). A
// secret that lies under a writable root (or the temp directory) cannot be
// hidden; entries created later in a directory above a secret are not
// readable until the sandbox is built again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"

namespace ikigai::sandbox::landlock {

// Rights, by the ABI that introduced them.
inline constexpr std::uint64_t kExecute = 1ULL << 0;
inline constexpr std::uint64_t kWriteFile = 1ULL << 1;
inline constexpr std::uint64_t kReadFile = 1ULL << 2;
inline constexpr std::uint64_t kReadDir = 1ULL << 3;
inline constexpr std::uint64_t kRemoveDir = 1ULL << 4;
inline constexpr std::uint64_t kRemoveFile = 1ULL << 5;
inline constexpr std::uint64_t kMakeChar = 1ULL << 6;
inline constexpr std::uint64_t kMakeDir = 1ULL << 7;
inline constexpr std::uint64_t kMakeReg = 1ULL << 8;
inline constexpr std::uint64_t kMakeSock = 1ULL << 9;
inline constexpr std::uint64_t kMakeFifo = 1ULL << 10;
inline constexpr std::uint64_t kMakeBlock = 1ULL << 11;
inline constexpr std::uint64_t kMakeSym = 1ULL << 12;
inline constexpr std::uint64_t kRefer = 1ULL << 13;                   // ABI 2
inline constexpr std::uint64_t kTruncate = 1ULL << 14;                // ABI 3
inline constexpr std::uint64_t kIoctlDev = 1ULL << 15;                // ABI 5
inline constexpr std::uint64_t kNetBindTcp = 1ULL << 0;               // ABI 4
inline constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;            // ABI 4
inline constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
inline constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // ABI 6

// Every filesystem right the ABI knows, and the subset that applies to a
// file (not a directory).
std::uint64_t FsRights(int abi);
std::uint64_t FileRights(int abi);
inline constexpr std::uint64_t kReadRights = kReadFile | kReadDir | kExecute;

// The ABI the kernel offers (0: none, or Landlock disabled).
int KernelAbi();

struct RulesetSpec {
  int abi = 0;
  std::vector<std::string> writable;  // directories (or files) with every right
  std::vector<std::string> devices;   // files with read and write rights
  std::vector<std::string> secrets;   // absolute; not readable
  bool deny_tcp = false;              // ABI >= 4: no TCP bind or connect
  bool scope = true;                  // ABI >= 6: abstract sockets and signals
};

// A ruleset descriptor (close-on-exec), ready for landlock_restrict_self.
// Paths that do not exist are left out.
Result<UniqueFd, std::string> BuildRuleset(const RulesetSpec& spec);

// The child's step: async-signal-safe. Returns 0 or an errno.
int RestrictSelf(int ruleset_fd);

}  // namespace ikigai::sandbox::landlock
