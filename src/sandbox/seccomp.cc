#include "sandbox/seccomp.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace ikigai::sandbox::seccomp {
namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
#error "the sandbox's seccomp filter knows x86_64 and aarch64"
#endif

// System calls newer than Debian 12's headers (numbers shared by every
// architecture since 424).
constexpr int kOpenTreeAttr = 467;

constexpr unsigned kAllow = SECCOMP_RET_ALLOW;
constexpr unsigned kRefuse = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
constexpr unsigned kKill = SECCOMP_RET_KILL_PROCESS;

constexpr unsigned kNrOffset = offsetof(seccomp_data, nr);
constexpr unsigned kArchOffset = offsetof(seccomp_data, arch);
// The low 32 bits of an argument (little-endian).
constexpr unsigned ArgOffset(int i) { return offsetof(seccomp_data, args) + 8 * i; }

sock_filter Load(unsigned offset) { return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset); }
sock_filter Ret(unsigned value) { return BPF_STMT(BPF_RET | BPF_K, value); }
sock_filter JumpIfEqual(unsigned value, unsigned char if_true, unsigned char if_false) {
  return BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, if_true, if_false);
}

}  // namespace

std::vector<sock_filter> BuildFilter(const FilterSpec& spec) {
  std::vector<sock_filter> p;
  p.push_back(Load(kArchOffset));
  p.push_back(JumpIfEqual(kArch, 1, 0));
  p.push_back(Ret(kKill));
  p.push_back(Load(kNrOffset));
#if defined(__x86_64__)
  constexpr unsigned kX32Bit = 0x40000000;
  p.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, 0, 1));
  p.push_back(Ret(kKill));
#endif

  std::vector<unsigned> refused = {SYS_io_uring_setup, SYS_io_uring_enter,   SYS_io_uring_register,
                                   SYS_ptrace,         SYS_process_vm_readv, SYS_process_vm_writev};
  if (spec.refuse_connect) refused.push_back(SYS_connect);
  if (spec.refuse_mount) {
    for (unsigned nr : {SYS_mount, SYS_umount2, SYS_pivot_root, SYS_move_mount, SYS_open_tree,
                        SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr}) {
      refused.push_back(nr);
    }
    refused.push_back(kOpenTreeAttr);
  }
  for (unsigned nr : refused) {
    p.push_back(JumpIfEqual(nr, 0, 1));
    p.push_back(Ret(kRefuse));
  }

  // ioctl: no input injected into a terminal.
  p.push_back(JumpIfEqual(SYS_ioctl, 0, 5));
  p.push_back(Load(ArgOffset(1)));
  p.push_back(JumpIfEqual(TIOCSTI, 2, 0));
  p.push_back(JumpIfEqual(TIOCLINUX, 1, 0));
  p.push_back(Ret(kAllow));
  p.push_back(Ret(kRefuse));

  if (spec.refuse_inet_sockets || spec.refuse_unix_sockets) {
    p.push_back(JumpIfEqual(SYS_socket, 0, 4));
    p.push_back(Load(ArgOffset(0)));
    p.push_back(JumpIfEqual(AF_UNIX, 0, 1));
    p.push_back(Ret(spec.refuse_unix_sockets ? kRefuse : kAllow));
    p.push_back(Ret(spec.refuse_inet_sockets ? kRefuse : kAllow));
  }
  if (spec.refuse_unix_sockets) {
    // A datagram pair is connected to itself, but sendto() on it may still
    // name any socket path (journald, syslog): refused. Stream pairs (asyncio,
    // multiprocessing) cannot, and stay.
    constexpr unsigned kSocketTypeMask = 0xf;
    p.push_back(JumpIfEqual(SYS_socketpair, 0, 7));
    p.push_back(Load(ArgOffset(0)));
    p.push_back(JumpIfEqual(AF_UNIX, 0, 3));
    p.push_back(Load(ArgOffset(1)));
    p.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, kSocketTypeMask));
    p.push_back(JumpIfEqual(SOCK_DGRAM, 1, 0));
    p.push_back(Ret(kAllow));
    p.push_back(Ret(kRefuse));
  }
  p.push_back(Ret(kAllow));
  return p;
}

__attribute__((no_sanitize("address"))) int Install(const sock_fprog* program) {
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, program) !=
      0) {
    return errno;
  }
  return 0;
}

}  // namespace ikigai::sandbox::seccomp
