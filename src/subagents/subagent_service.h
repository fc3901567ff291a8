// The host's side of subagents (DECISIONS §8): the host-channel methods
// the `task` tool calls, and every subagent of the session.
//
//   subagent/start {prompt, background?, timeout_ms?}
//       In the foreground: runs the subagent and answers
//       {"text", "rounds", "usage", "session"} when it ends, or an error
//       (the subagent's own, an API error say, as a result the model
//       reads); stopped when the tool's call ends (cancelled, timed out).
//       In the background: answers {"task_id", "status": "running",
//       "output_file"} at once; the subagent runs on, its task directory
//       (base/task_files.h) read by task_output and stopped by kill_shell
//       through its control FIFO, like a background command.
//   subagent/stop {task_id}: stops one of this session's subagents.
//
// At most kMaxRunning subagents run at once; the others wait their turn.
// When the session ends the service stops every subagent still running
// (the destructor); if the host is killed, its guard does.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "hostapi/host_channel.h"
#include "subagents/subagent.h"

namespace ikigai::subagents {

inline constexpr int kMaxRunning = 4;

// What /status shows about the session's subagents.
struct SubagentSummary {
  int running = 0;
  int waiting = 0;
  int finished = 0;
  providers::Usage usage;  // all of them, the running ones as reported so far
};

class SubagentService : public hostapi::Methods {
 public:
  // `settings` gives the parent's provider, model and mode at the moment a
  // subagent starts (a REPL may have changed them since the last one).
  explicit SubagentService(std::function<SubagentSettings()> settings);
  ~SubagentService() override;  // stops every subagent and waits for them

  hostapi::MethodResult Call(const std::string& method, const nlohmann::json& params,
                             const hostapi::CallContext& context) override;

  SubagentSummary Summary() const;
  // Stops every subagent still running or waiting (the session's mode
  // became narrower than theirs); returns how many.
  int StopAll();

 private:
  struct Running;
  hostapi::MethodResult Start(const nlohmann::json& params, int cancel_fd);
  hostapi::MethodResult Stop(const nlohmann::json& params);
  // Waits for a free slot (or a stop); false if stopped first.
  bool Acquire(Running& entry, int cancel_fd);
  void Release();
  void JoinEndedLocked();  // joins the background threads that have ended
  SubagentResult Run(Running& entry, const SubagentSettings& settings, const std::string& prompt,
                     std::vector<int> stop_fds);
  void RunInBackground(std::shared_ptr<Running> entry, SubagentSettings settings,
                       std::string prompt, std::string task_dir);

  std::function<SubagentSettings()> settings_;
  mutable std::mutex mutex_;
  std::condition_variable slot_freed_;
  int running_ = 0;
  int waiting_ = 0;
  int finished_ = 0;
  providers::Usage usage_;
  bool closing_ = false;
  std::map<std::string, std::shared_ptr<Running>> by_id_;  // running or waiting
  std::vector<std::thread> background_;
  std::vector<std::thread::id> ended_;  // of background_, to be joined
};

}  // namespace ikigai::subagents
