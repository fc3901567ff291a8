// The seccomp filter of a confined tool (DECISIONS §6), built in the parent
// as a classic BPF program and installed by the child.
//
// Always refused (EPERM): io_uring (its operations bypass the checks below),
// ptrace and process_vm_readv/writev (another process's memory), and the
// terminal ioctls that inject input (TIOCSTI, TIOCLINUX). Without network:
// socket() of any family but AF_UNIX. Below tier 2, network or not, no
// AF_UNIX socket reaches the host: a host Unix socket (D-Bus, systemd
// --user, tmux) is a full escape, and seccomp cannot see the address a
// connect() names nor the family of the socket it is given. So socket()
// of AF_UNIX is refused (socketpair() of a stream pair stays, of a datagram
// pair not), and without network connect() altogether. Name resolution
// then goes past nscd and systemd-resolved's socket to /etc/hosts and DNS.
// At tier 2: the mount family, since the tool is root in its user
// namespace and could otherwise unmount the read-only binds. A system call
// of another architecture (or x32) kills the process.
#pragma once

#include <linux/filter.h>

#include <vector>

namespace ikigai::sandbox::seccomp {

struct FilterSpec {
  bool refuse_inet_sockets = false;  // every family but AF_UNIX
  bool refuse_unix_sockets = false;  // AF_UNIX, and socketpair() of datagrams
  bool refuse_connect = false;
  bool refuse_mount = false;
};

std::vector<sock_filter> BuildFilter(const FilterSpec& spec);

// The child's step (after no_new_privs): async-signal-safe; 0 or an errno.
int Install(const sock_fprog* program);

}  // namespace ikigai::sandbox::seccomp
