// One subagent (DECISIONS §8): ikigai started again as
// `ikigai -p - --output json` with a conversation of its own, the prompt on
// stdin and one JSON object on stdout at the end.
//
// It gets the parent's provider, model and permission mode (never a wider
// one), the parent's trust of the folder, a round cap, and
// IKIGAI_SUBAGENT=1, which keeps host-channel tools (the `task` tool) out
// of its registry: a subagent starts no subagents. It runs in a process
// group of its own, keeps the parent's IKIGAI_SESSION_DIR in the
// environment it starts with (so the parent's guard ends it with the
// session, even after a SIGKILL of the parent), and makes a session
// directory of its own for its tools. Stopping it (a stop descriptor
// readable, or the time cap) gives its group SIGTERM, then SIGKILL after a
// grace.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "providers/conversation.h"

namespace ikigai::subagents {

// A subagent's time cap; a foreground one also ends with its tool's call.
inline constexpr std::chrono::minutes kDefaultTimeCap{30};

struct SubagentSettings {
  std::string executable;  // ikigai itself
  std::string provider;
  std::string model;
  std::string permissions;  // the mode's name
  bool trusted = false;     // the parent trusts the working directory
  int max_rounds = 50;
  std::chrono::milliseconds time_cap{kDefaultTimeCap};
};

struct SubagentResult {
  bool ok = false;
  std::string text;        // the final answer (ok)
  std::string error;       // why it failed (!ok)
  std::string error_code;  // its -p --output json error_code, or ours
  int rounds = 0;
  bool round_limit_reached = false;
  bool stopped = false;  // stopped by a stop descriptor or the time cap
  providers::Usage usage;
  std::string session;  // its session log's id, if it made one
};

// The environment variable that marks a subagent.
inline constexpr const char* kSubagentVariable = "IKIGAI_SUBAGENT";
bool IsSubagent();

// Runs the subagent to its end. Any of `stop_fds` becoming readable stops
// it. `on_usage` gets each request's usage
// as it is reported (live, for /status).
SubagentResult RunSubagent(const SubagentSettings& settings, const std::string& prompt,
                           const std::vector<int>& stop_fds,
                           const std::function<void(const providers::Usage&)>& on_usage = nullptr);

}  // namespace ikigai::subagents
