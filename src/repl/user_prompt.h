// The REPL's side of the host channel's user requests (hostapi/
// user_requests.h): a tool's question (elicit) asked on the terminal while
// the turn waits, and its progress lines shown as they come.
//
// A question takes the terminal the way an approval does: Ctrl+C declines
// it instead of cancelling the turn, Ctrl+D dismisses it, and the call
// ending (a timeout, a cancel) takes it back. Questions from calls that run
// at once are asked one after another.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>

#include "agent/cancellation.h"
#include "hostapi/user_requests.h"
#include "repl/display.h"
#include "repl/line_editor.h"

namespace ikigai::repl {

class TerminalUser : public hostapi::User {
 public:
  // `turn` gives the turn under way, whose Ctrl+C the question borrows.
  TerminalUser(LineReader& reader, Display& display, std::function<agent::Cancellation*()> turn)
      : reader_(reader), display_(display), turn_(std::move(turn)) {}

  std::optional<hostapi::Reply> Elicit(const hostapi::Question& question, int cancel_fd) override;
  void Progress(const std::string& tool, const std::string& message) override;

 private:
  // One answer typed: its content, or nullopt when the reading ended with
  // `reply` set (declined, dismissed, aborted).
  std::optional<std::string> ReadLine(const std::string& prompt, int cancel_fd,
                                      hostapi::Reply& reply);
  std::optional<nlohmann::json> AskForm(const hostapi::Question& question, int cancel_fd,
                                        hostapi::Reply& reply);

  LineReader& reader_;
  Display& display_;
  std::function<agent::Cancellation*()> turn_;
  std::mutex asking_;  // one question at a time
  std::atomic<bool> question_shown_ = false;
};

}  // namespace ikigai::repl
