// The REPL's signals. Handlers only touch atomics and write to a pipe
// (async-signal-safe); the line reader reads the pipe.
//
//   SIGINT   during a turn: cancel it (Cancellation::Request: the stream is
//            closed, tool process groups are killed); a third press before
//            the cancellation took effect ends ikigai (130). At the prompt:
//            'i' on the pipe.
//   SIGWINCH 'w' (the reader redraws for the new size)
//   SIGTERM, SIGHUP  (a supervisor, a closed terminal) end ikigai without
//            leaving tools behind: during a turn, cancel it first; at the
//            prompt, 'q' on the pipe. QuitSignal() then names the signal.
//   SIGTSTP  the terminal's own modes back, then stop; SIGCONT 'c' (the
//            reader puts its modes back and redraws)
#pragma once

#include "agent/cancellation.h"

namespace ikigai::repl::signals {

inline constexpr char kInterrupt = 'i';
inline constexpr char kResize = 'w';
inline constexpr char kContinue = 'c';
inline constexpr char kQuit = 'q';

// Installs the handlers; returns the pipe's read end (non-blocking), or -1.
int Install();
// Puts the previous handlers back.
void Uninstall();
// The turn that SIGINT cancels; null between turns.
void SetTurn(agent::Cancellation* cancellation);
// SIGTERM or SIGHUP once received, else 0.
int QuitSignal();

}  // namespace ikigai::repl::signals
