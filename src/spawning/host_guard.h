// Nothing the host started outlives it: not a tool, nor what a tool started.
//
// A tool runs in its own process group, the bash tool's command in a
// session of its own, and a command may leave background jobs behind. If
// the host is killed outright (SIGKILL, the OOM killer) none of them is
// told. PR_SET_PDEATHSIG cannot cover this: it fires when the *thread*
// that created a process ends, not the process, and it reaches one process,
// not what that one started; once a parent dies, its children are
// reparented and the tree is lost.
//
// So the host starts a guard process at once: its own executable again, in
// a hidden mode (RunHostGuardIfAsked; a fork would share the host's pages,
// each then copied when the host writes it), in a session of its own,
// ignoring the terminal's signals, holding the read end of a pipe only the
// host can write. The host is a child subreaper: an orphan of its
// descendants (a daemon's double fork) becomes its child rather than
// init's and stays in the tree. While tools run, the guard notes every
// descendant of the host (pid, start time, process group, session) from
// /proc, a few times a second. When the pipe closes (the host ended,
// however) it kills every process still alive of those it noted, of their
// groups and sessions (never the host's own, which hold the user's shell;
// never a later process that got a noted number), of every process started
// since the host whose environment holds this session's
// IKIGAI_SESSION_DIR (what left the tree between two looks), and their
// descendants, round after round until none is left, removes the session
// directory, and exits. A tool that leaves processes running after it
// answers (the bash tool's background jobs) registers their process group
// or session as a file named by its number in
// $IKIGAI_SESSION_DIR/process-groups/, holding the leader's start time.
// The host tells the guard every tool process it starts, which also wakes
// it; an idle session costs nothing.
#pragma once

#include <sys/types.h>

#include <string>

namespace ikigai::spawning {

// Creates the session's private scratch directory (IKIGAI_SESSION_DIR in
// the host's environment, so that every tool gets it, with its unique part
// as IKIGAI_SESSION_ID) and starts the guard. Call once, early. Returns the directory,
// or "" if it could not be created (tools then do without).
std::string StartHostGuard();

// In main, first: when the process was started as a guard, runs the guard
// and never returns; otherwise returns -1.
int RunHostGuardIfAsked(int argc, char** argv);

// Tells the guard about a tool process just started (and that it should
// watch). Cheap; a no-op without a guard.
void TellHostGuard(pid_t pid);

}  // namespace ikigai::spawning
