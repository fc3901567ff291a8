// Running tool calls: the host's side of a call (seeds/001 Execution Flow,
// DECISIONS §3).
//
// A batch of calls (the tool calls of one model turn) runs at once in one
// event loop (spawning::RunAll). Each call: look the tool up (TOOL_NOT_FOUND),
// write the arguments to its stdin, read one JSON object from its stdout,
// and wrap the outcome for the model: {"tool_success": true, "result": ...}
// or a failure with TOOL_TIMEOUT, TOOL_CRASHED (exit code or signal, partial
// stdout, stderr), INVALID_OUTPUT, OUTPUT_TOO_LARGE, INVALID_PARAMS.
// The tool gets IKIGAI_TOOL_DEADLINE_MS in its environment.
//
// Calls that may write are ordered against the calls they may touch
// (call_order.h): a read-only tool (readOnlyHint, or what is_read_only
// says) runs beside anything that does not write its path.
//
// Tools that are not processes (registry::Source::kMcp: a tool of an MCP
// server) go through RemoteTools: each such call runs on a thread of its
// own within its wave, beside the wave's processes, and is held to the same
// ordering, cancellation and wrapping. So are the host's own tools
// (registry::Source::kHost, through host_tools).
//
// A tool whose schema says "host_api": true gets the host channel as
// descriptor 3 (hostapi/host_channel.h) for the length of its call.
//
// With a sandbox, each call's process enters the profile that profile_for
// chooses (IKIGAI_SANDBOX describes it to the tool). Around a batch with a
// writing call, the protected paths (.git/hooks, .git/config, .ikigai) are
// fingerprinted; where something changed them (below tier 2 no mount keeps
// them read-only), each writing call's result carries
// "protected_paths_changed" so that the model and the user are told.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hostapi/host_channel.h"
#include "protocol/wrapper.h"
#include "registry/registry.h"
#include "sandbox/sandbox.h"

namespace ikigai::executor {

struct Limits {
  std::chrono::milliseconds timeout{30000};
  std::size_t output_limit = 64 * 1024;  // stdout bytes
  std::size_t stderr_limit = 8 * 1024;
};

struct Call {
  std::string id;            // the model's call id, returned as is
  std::string tool;          // tool name
  nlohmann::json arguments;  // should be an object
};

// Whether a call only reads; by default the tool's readOnlyHint.
using ReadOnlyTest = std::function<bool(const registry::Tool&, const Call&)>;

// The sandbox profile for one call; nullopt runs it unconfined.
using ProfileChooser =
    std::function<std::optional<sandbox::Profile>(const registry::Tool&, const Call&)>;

// Calls of tools that are not processes (MCP tools).
class RemoteTools {
 public:
  virtual ~RemoteTools() = default;
  // Runs the call and returns what the model sees; a readable `cancel_fd`
  // stops it (error_code CANCELLED). Called from several threads at once.
  virtual protocol::WrappedJson Call(const registry::Tool& tool, const nlohmann::json& arguments,
                                     int cancel_fd) = 0;
};

struct ExecutorOptions {
  Limits defaults;
  std::map<std::string, Limits, std::less<>> per_tool;  // by tool name
  // Secret-looking variables tools may see anyway (spawning/environment.h).
  std::vector<std::string> env_passthrough;
  // Settings for one tool, as variables set for its calls (by tool name:
  // web_fetch.allow_private_networks is IKIGAI_WEB_FETCH_ALLOW_PRIVATE_NETWORKS).
  std::map<std::string, std::map<std::string, std::string>, std::less<>> tool_env;
  // Null: no sandbox. Without profile_for, every call gets the default
  // profile (workspace-write, no network).
  std::shared_ptr<sandbox::Sandbox> sandbox = nullptr;
  ProfileChooser profile_for = nullptr;
  ReadOnlyTest is_read_only = nullptr;
  // What the host channel offers to tools whose schema asks for it
  // ("host_api": true); null: they get no channel.
  std::shared_ptr<hostapi::Methods> host_api = nullptr;
  // Who runs registry::Source::kMcp tools; null: such calls fail.
  std::shared_ptr<RemoteTools> remote_tools = nullptr;
  // Who runs registry::Source::kHost tools (the skill tool); null: such
  // calls fail.
  std::shared_ptr<RemoteTools> host_tools = nullptr;
};

// Whether the tool's schema asks for the host channel ("host_api": true).
bool WantsHostChannel(const registry::Tool& tool);

struct CallResult {
  std::string id;
  std::string tool;
  protocol::WrappedJson wrapped;  // what the model sees
  std::chrono::microseconds elapsed{0};
};

class Executor {
 public:
  explicit Executor(ExecutorOptions options) : options_(std::move(options)) {}
  // Limits and environment from the configuration, with this sandbox.
  Executor(const ExecutorOptions& base, std::shared_ptr<sandbox::Sandbox> sandbox,
           ProfileChooser profile_for, ReadOnlyTest is_read_only,
           std::shared_ptr<hostapi::Methods> host_api = nullptr)
      : options_(base) {
    options_.sandbox = std::move(sandbox);
    options_.profile_for = std::move(profile_for);
    options_.is_read_only = std::move(is_read_only);
    options_.host_api = std::move(host_api);
  }

  // Runs the calls, at once where they cannot collide; results in the order
  // of `calls`. A readable `cancel_fd` stops the calls still running and
  // those not started (error_code "CANCELLED").
  std::vector<CallResult> Run(const registry::Registry& registry, const std::vector<Call>& calls,
                              int cancel_fd = -1) const;

  const Limits& LimitsFor(std::string_view tool) const;

 private:
  ExecutorOptions options_;
};

}  // namespace ikigai::executor
