// Reading the user's lines.
//
// On a terminal: libedit (emacs keys, ~/.editrc), the history of
// history.h, bracketed paste (pasted newlines stay in the line), Alt+Enter
// for a newline, Ctrl+C reported as an interrupt, Ctrl+D on an
// empty line as the end. Elsewhere (a pipe, a file): plain lines, no prompt.
//
// Both wait on a wake-up pipe besides the input (signals.h: SIGINT, SIGWINCH,
// SIGCONT) and on an optional notifier whose text is printed above the
// prompt while the user is typing (discovery's Debug lines).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "repl/history.h"

namespace ikigai::repl {

struct ReadResult {
  // kAborted: the abort descriptor became readable first.
  enum class Status { kLine, kEnd, kInterrupted, kAborted };
  Status status = Status::kEnd;
  std::string text;        // kLine: the line, without its final newline
  bool line_empty = true;  // kInterrupted: whether nothing was typed
};

class LineReader {
 public:
  virtual ~LineReader() = default;
  ReadResult Read(const std::string& prompt) { return Read(prompt, -1); }
  // The same, given up (kAborted) once `abort_fd` is readable (-1: never).
  virtual ReadResult Read(const std::string& prompt, int abort_fd) = 0;
  // Remembers an entry (for Up/Down, and in the history file).
  virtual void AddHistory(const std::string& entry) = 0;
  // While Read waits, `fd` becoming readable calls `on_ready` once (then
  // the notifier is removed); what it returns is printed above the prompt.
  virtual void SetNotifier(int fd, std::function<std::string()> on_ready) = 0;
};

// libedit on the terminal of `in_fd`/`out`. `history` may be empty (none).
// `wake_fd` is signals.h's pipe (-1: none).
std::unique_ptr<LineReader> MakeTerminalReader(int wake_fd, std::unique_ptr<HistoryFile> history,
                                               bool color);
// Lines from `in_fd`, no prompt and no history.
std::unique_ptr<LineReader> MakePlainReader(int in_fd, int wake_fd);

}  // namespace ikigai::repl
