#include "sandbox/landlock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <set>

namespace ikigai::sandbox::landlock {
namespace {

constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::string Describe(const std::string& what, int error) {
  return what + ": " + std::strerror(error);
}

std::string Join(const std::string& dir, const char* name) {
  return dir == "/" ? "/" + std::string(name) : dir + "/" + name;
}

// Adds a rule for `path` with `rights` (cut to file rights for a file).
// A path that cannot be opened is left out.
Result<bool, std::string> AddPath(int ruleset, const std::string& path, std::uint64_t rights,
                                  int abi, bool follow) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (fd < 0) return false;
  UniqueFd owned(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) return false;
  if (!S_ISDIR(st.st_mode)) rights &= FileRights(abi);
  if (rights == 0) return false;
  PathBeneathAttr attr{rights, fd};
  if (::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &attr, 0) != 0) {
    return Err(Describe("landlock rule for " + path, errno));
  }
  return true;
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return {};
  return buf;
}

// Read rights everywhere but under the secrets (see landlock.h).
Result<bool, std::string> AddReadable(int ruleset, const RulesetSpec& spec) {
  std::set<std::string> secrets, ancestors;
  for (const auto& s : spec.secrets) {
    // A secret that does not exist yet stays unreadable once created: its
    // parent's entries are then granted one by one as for any secret.
    std::string real = RealPath(s);
    if (real.empty()) {
      const auto slash = s.rfind('/');
      const std::string parent = slash == std::string::npos ? "" : RealPath(s.substr(0, slash));
      if (parent.empty()) continue;
      real = Join(parent, s.substr(slash + 1).c_str());
    }
    if (real == "/") continue;
    secrets.insert(real);
    for (std::size_t slash = real.rfind('/'); slash != std::string::npos;
         slash = slash == 0 ? std::string::npos : real.rfind('/', slash - 1)) {
      ancestors.insert(slash == 0 ? "/" : real.substr(0, slash));
    }
  }
  if (secrets.empty()) return AddPath(ruleset, "/", kReadRights, spec.abi, true);
  for (const auto& dir : ancestors) {
    if (secrets.count(dir) != 0) continue;  // a secret inside a secret
    auto added = AddPath(ruleset, dir, kReadDir, spec.abi, false);
    if (!added) return added;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) continue;
    Result<bool, std::string> result = true;
    while (const dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      const std::string path = Join(dir, e->d_name);
      if (secrets.count(path) != 0 || ancestors.count(path) != 0) continue;
      result = AddPath(ruleset, path, kReadRights, spec.abi, false);
      if (!result) break;
    }
    ::closedir(d);
    if (!result) return result;
  }
  return true;
}

}  // namespace

std::uint64_t FsRights(int abi) {
  if (abi <= 0) return 0;
  std::uint64_t rights = (kMakeSym << 1) - 1;  // ABI 1: bits 0 to 12
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

std::uint64_t FileRights(int abi) {
  return FsRights(abi) & (kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev);
}

int KernelAbi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

Result<UniqueFd, std::string> BuildRuleset(const RulesetSpec& spec) {
  if (spec.abi <= 0) return Err(std::string("Landlock is not available"));
  RulesetAttr attr{FsRights(spec.abi), 0, 0};
  if (spec.abi >= 4 && spec.deny_tcp) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
  if (spec.abi >= 6 && spec.scope) attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
  const std::size_t size = spec.abi >= 6   ? sizeof attr
                           : spec.abi >= 4 ? offsetof(RulesetAttr, scoped)
                                           : offsetof(RulesetAttr, handled_access_net);
  const long fd = ::syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) return Err(Describe("landlock_create_ruleset", errno));
  UniqueFd ruleset(static_cast<int>(fd));  // the kernel makes it close-on-exec

  auto readable = AddReadable(ruleset.get(), spec);
  if (!readable) return Err(std::move(readable.error()));
  for (const auto& path : spec.writable) {
    auto added = AddPath(ruleset.get(), path, FsRights(spec.abi), spec.abi, true);
    if (!added) return Err(std::move(added.error()));
  }
  const std::uint64_t device = kReadFile | kWriteFile | (spec.abi >= 3 ? kTruncate : 0);
  for (const auto& path : spec.devices) {
    auto added = AddPath(ruleset.get(), path, device, spec.abi, true);
    if (!added) return Err(std::move(added.error()));
  }
  return ruleset;
}

__attribute__((no_sanitize("address"))) int RestrictSelf(int ruleset_fd) {
  if (::syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0) return errno;
  return 0;
}

}  // namespace ikigai::sandbox::landlock
