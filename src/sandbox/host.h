// The host's own protection from the tools it runs (DECISIONS §6).
//
// The host's environment holds the provider keys (ANTHROPIC_API_KEY, ...)
// and its memory the keys and the conversation. A process of the same user
// may read /proc/HOST/environ and /proc/HOST/mem as long as the host is
// "dumpable"; Landlock refuses that to a confined tool only in part (not
// environ for root, nothing at tier 0). So the host makes itself
// non-dumpable: its /proc files then belong to root, and only a process with
// CAP_SYS_PTRACE (which the sandbox drops from every tool, see sandbox.h)
// reads them. It also means no core dump of the host, which would hold the
// keys too. Files any process may read (/proc/HOST/stat, status, cmdline)
// stay readable: the host guard needs stat.
//
// Tier 2 children share the host's memory until exec and so its
// non-dumpable state; namespaces.cc deals with what that changes.
#pragma once

namespace ikigai::sandbox {

// Call once, early, before any tool runs. Returns 0 or an errno.
int HideHostFromTools();

}  // namespace ikigai::sandbox
