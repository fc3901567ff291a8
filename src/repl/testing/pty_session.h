// A program in a pseudo-terminal, for tests: start it (forkpty), type into
// it, wait for what it prints. Output is read on a thread into a buffer;
// Expect() looks for text after what earlier Expect() calls consumed, in
// the output with terminal escape sequences and carriage returns removed.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/result.h"

namespace ikigai::repl::testing {

struct PtyOptions {
  std::vector<std::string> args = {};                         // after the program's path
  std::vector<std::pair<std::string, std::string>> env = {};  // the whole environment
  std::string cwd = {};
  unsigned short rows = 50;
  unsigned short columns = 200;
};

class PtySession {
 public:
  static Result<std::unique_ptr<PtySession>, std::string> Start(const std::string& program,
                                                                const PtyOptions& options);
  ~PtySession();  // SIGKILL if still running
  PtySession(const PtySession&) = delete;
  PtySession& operator=(const PtySession&) = delete;

  void Send(std::string_view bytes);
  // Waits until `text` appears past the cursor; moves the cursor past it.
  bool Expect(std::string_view text, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Whether `text` appears past the cursor now (no waiting, cursor kept).
  bool Seen(std::string_view text) const;
  // The exit status once the program ends (-1: still running at the
  // timeout; 128+N: killed by signal N).
  int Wait(std::chrono::milliseconds timeout = std::chrono::seconds(30));

  std::string Raw() const;    // everything printed, as is
  std::string Plain() const;  // without escape sequences and '\r'
  std::string Rest() const;   // Plain() past the cursor
  pid_t pid() const { return pid_; }

 private:
  PtySession() = default;
  void ReadLoop();

  pid_t pid_ = -1;
  int master_ = -1;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::string raw_;
  bool closed_ = false;
  std::atomic<bool> stopping_{false};
  std::size_t cursor_ = 0;  // in Plain()
  int status_ = -1;
  std::thread reader_;
};

// `text` without CSI/OSC escape sequences, other two-byte escapes and '\r'.
std::string StripEscapes(std::string_view text);

}  // namespace ikigai::repl::testing
