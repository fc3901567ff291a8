// Running hook commands: `/bin/sh -c COMMAND` in the working directory,
// the event as JSON on stdin, at once in one poll() loop
// (spawning::RunAll), each in its own process group with its deadline
// (the whole group is killed when it passes), under the tool sandbox, with
// the tools' environment (no secrets) and their output caps.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hooks/hook_config.h"
#include "sandbox/sandbox.h"

namespace ikigai::hooks {

// Where and how hooks run; shared by every hook of a session.
struct RunSettings {
  std::string cwd;                                      // the working directory (empty: the host's)
  std::shared_ptr<sandbox::Sandbox> sandbox = nullptr;  // null: unconfined
  // The profile for a hook now (the mode may change in the REPL); nullopt:
  // unconfined. Null function: the default profile (workspace-write).
  std::function<std::optional<sandbox::Profile>()> profile = nullptr;
  std::vector<std::string> env_passthrough = {};  // tools.env_passthrough
};

// How one hook ended.
struct HookRun {
  const Hook* hook = nullptr;
  enum class End {
    kExited,     // exit_code is set
    kFailed,     // crashed: a signal, too much output, could not start (`problem` says)
    kTimedOut,   // killed at its deadline
    kCancelled,  // the user stopped the turn
  } end = End::kFailed;
  int exit_code = -1;
  std::string out;      // stdout (at most 64 KB)
  std::string err;      // stderr (at most 8 KB)
  std::string problem;  // kFailed, kTimedOut: what happened, for the user
};

// One hook to run with its input.
struct HookJob {
  const Hook* hook;
  std::string input;  // the event as JSON text
};

// Runs every job at once; results in the order of `jobs`. A readable
// `cancel_fd` stops them (kCancelled).
std::vector<HookRun> RunHooks(const std::vector<HookJob>& jobs, const RunSettings& settings,
                              int cancel_fd = -1);

// "`./check.sh`" cut to a line's worth, for the messages that name a hook.
std::string HookLabel(const Hook& hook);

}  // namespace ikigai::hooks
