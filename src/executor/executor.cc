// Turns a batch of calls into jobs for one RunAll, and each outcome into
// the wrapper the model sees. Calls that cannot run (unknown tool,
// arguments not an object) are answered without a process.
#include "executor/executor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include "base/format.h"
#include "base/thread.h"
#include "base/utf8.h"
#include "executor/call_order.h"
#include "protocol/parse_json.h"
#include "protocol/wrapper.h"
#include "sandbox/snapshot.h"
#include "sandbox/workspace.h"
#include "spawning/environment.h"
#include "spawning/run_many.h"

namespace ikigai::executor {
namespace {

using json = protocol::WrappedJson;
using spawning::JobEnd;
using spawning::JobOutcome;
namespace code = protocol::wrapper_code;

// How much of a failed call's stdout the model sees: enough to show what
// went wrong, little enough not to flood the conversation.
constexpr std::size_t kStdoutExcerpt = 2 * 1024;

std::string Quoted(std::string_view tool) { return "Tool '" + std::string(tool) + "'"; }

// Valid UTF-8, at most `max` bytes, not cut inside a character.
std::string Excerpt(std::string_view bytes, std::size_t max) {
  std::string text = utf8::Repair(bytes);
  text.resize(utf8::SafePrefixLength(text, max));
  return text;
}

std::string SignalName(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? " (SIG" + std::string(abbrev) + ")" : "";
}

json NotFound(const registry::Registry& registry, std::string_view tool) {
  std::string message = Quoted(tool) + " not found.";
  if (registry.tools().empty()) {
    message += " No tools are available.";
  } else {
    message += " Available tools: ";
    for (std::size_t i = 0; i < registry.tools().size(); ++i) {
      if (i > 0) message += ", ";
      message += registry.tools()[i].name;
    }
    message += ".";
  }
  return protocol::WrapFailure(code::kToolNotFound, std::move(message));
}

json NotAnObject(std::string_view tool, const nlohmann::json& arguments) {
  return protocol::WrapFailure(code::kInvalidParams,
                               "Arguments for " + Quoted(tool) + " must be a JSON object, not " +
                                   arguments.type_name() +
                                   ". Send the parameters as an object: {\"name\": value, ...}.");
}

// A failure that carries what the tool printed.
json WithOutput(json wrapped, const JobOutcome& o, bool with_stdout, std::size_t stderr_limit) {
  if (with_stdout) wrapped["stdout"] = Excerpt(o.out, kStdoutExcerpt);
  wrapped["stderr"] = Excerpt(o.err, stderr_limit);
  return wrapped;
}

json FromExit(std::string_view tool, const JobOutcome& o, const Limits& limits) {
  if (o.exit_code != 0) {
    json wrapped = protocol::WrapFailure(
        code::kToolCrashed,
        Quoted(tool) + " crashed with exit code " + std::to_string(o.exit_code) +
            ". See stderr for the cause; do not retry the same call unchanged.");
    wrapped["exit_code"] = o.exit_code;
    return WithOutput(std::move(wrapped), o, true, limits.stderr_limit);
  }
  const std::string text = utf8::Repair(o.out);
  std::string problem;
  if (IsBlank(text)) {
    problem = "printed nothing on stdout";
  } else if (auto parsed = protocol::ParseJson<json>(text); !parsed) {
    problem = "printed invalid output (" + parsed.error() + ")";
  } else if (!parsed->is_object()) {
    problem = std::string("printed a JSON ") + parsed->type_name() + ", not an object";
  } else {
    return protocol::WrapSuccess(std::move(*parsed));
  }
  return WithOutput(protocol::WrapFailure(code::kInvalidOutput,
                                          Quoted(tool) + " " + problem +
                                              ". A tool must print exactly one JSON object; "
                                              "this is a fault in the tool."),
                    o, true, limits.stderr_limit);
}

json Wrap(std::string_view tool, const JobOutcome& o, const Limits& limits) {
  switch (o.end) {
    case JobEnd::kExited:
      return FromExit(tool, o, limits);
    case JobEnd::kSignaled: {
      json wrapped = protocol::WrapFailure(
          code::kToolCrashed, Quoted(tool) + " was killed by signal " +
                                  std::to_string(o.term_signal) + SignalName(o.term_signal) +
                                  ". See stderr for the cause; do not retry the same call "
                                  "unchanged.");
      wrapped["exit_code"] = 128 + o.term_signal;
      return WithOutput(std::move(wrapped), o, true, limits.stderr_limit);
    }
    case JobEnd::kTimedOut:
      return WithOutput(
          protocol::WrapFailure(
              code::kToolTimeout,
              Quoted(tool) + " timed out after " + FormatDuration(limits.timeout) +
                  "; it was stopped. This is the host's deadline for the tool (tools." +
                  std::string(tool) +
                  ".timeout_ms in the configuration), not a limit the call set. Partial output, "
                  "if any, is in stdout; try a smaller or narrower request."),
          o, true, limits.stderr_limit);
    case JobEnd::kOutputTooLarge:
      return WithOutput(protocol::WrapFailure(code::kOutputTooLarge,
                                              Quoted(tool) + " printed more than " +
                                                  FormatSize(limits.output_limit) +
                                                  "; it was stopped and its output dropped. "
                                                  "Ask for less (a narrower pattern, a smaller "
                                                  "range, a limit)."),
                        o, false, limits.stderr_limit);
    case JobEnd::kCancelled:
      return WithOutput(protocol::WrapFailure(protocol::wrapper_code::kCancelled,
                                              Quoted(tool) + " was cancelled by the user; it was "
                                                             "stopped or never started."),
                        o, true, limits.stderr_limit);
    case JobEnd::kSpawnFailed:
      return protocol::WrapFailure(code::kToolCrashed,
                                   Quoted(tool) + " could not be started (" + o.spawn_error +
                                       "). Its file may have changed since the tools were "
                                       "scanned; use another tool.");
  }
  std::fputs("ikigai: bug: unknown JobEnd\n", stderr);
  std::abort();
}

bool HasReadOnlyHint(const registry::Tool& tool, const Call&) {
  const nlohmann::json& annotations = tool.schema.annotations;
  if (!annotations.is_object()) return false;
  auto hint = annotations.find("readOnlyHint");
  return hint != annotations.end() && hint->is_boolean() && hint->get<bool>();
}

CallAccess AccessOf(const Call& call, bool read_only) {
  CallAccess access;
  access.writes = !read_only;
  for (const char* name : {"file_path", "path"}) {
    auto path = call.arguments.find(name);
    if (path != call.arguments.end() && path->is_string()) {
      access.path = NamedPath(path->get<std::string>());
      if (access.path) access.file_identity = HardLinkedIdentity(*access.path);
      break;
    }
  }
  return access;
}

}  // namespace

const Limits& Executor::LimitsFor(std::string_view tool) const {
  auto it = options_.per_tool.find(tool);
  return it != options_.per_tool.end() ? it->second : options_.defaults;
}

bool WantsHostChannel(const registry::Tool& tool) { return tool.schema.host_api; }

std::vector<CallResult> Executor::Run(const registry::Registry& registry,
                                      const std::vector<Call>& calls, int cancel_fd) const {
  std::vector<CallResult> results(calls.size());
  std::vector<spawning::Job> jobs;
  std::vector<std::size_t> job_call;  // jobs[k] runs calls[job_call[k]]
  // Remote calls (MCP tools) take a place among the jobs so that they are
  // ordered with them: remote[k] is their tool, null for a process.
  std::vector<const registry::Tool*> remote;
  std::map<std::string, std::vector<std::string>> env_by_key;
  std::vector<std::size_t> writing_calls;
  std::vector<CallAccess> accesses;  // accesses[k] of jobs[k]
  // Host channels, open until every call of the batch has ended.
  std::vector<std::unique_ptr<hostapi::HostChannel>> channels;
  const ReadOnlyTest& is_read_only =
      options_.is_read_only ? options_.is_read_only : ReadOnlyTest(HasReadOnlyHint);

  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Call& call = calls[i];
    results[i].id = call.id;
    results[i].tool = call.tool;
    const registry::Tool* tool = registry.Find(call.tool);
    if (tool == nullptr) {
      results[i].wrapped = NotFound(registry, call.tool);
      continue;
    }
    if (!call.arguments.is_object()) {
      results[i].wrapped = NotAnObject(call.tool, call.arguments);
      continue;
    }
    if (tool->source == registry::Source::kHost) {
      if (!options_.host_tools) {
        results[i].wrapped = protocol::WrapFailure(
            code::kToolNotFound, Quoted(call.tool) + " is not available here. Use another tool.");
        continue;
      }
      jobs.emplace_back();
      job_call.push_back(i);
      remote.push_back(tool);
      accesses.push_back(AccessOf(call, is_read_only(*tool, call)));
      continue;
    }
    if (tool->source == registry::Source::kMcp) {
      if (!options_.remote_tools) {
        results[i].wrapped = protocol::WrapFailure(code::kToolNotFound,
                                                   Quoted(call.tool) +
                                                       " is an MCP tool and MCP servers are not "
                                                       "available here. Use another tool.");
        continue;
      }
      jobs.emplace_back();
      job_call.push_back(i);
      remote.push_back(tool);
      accesses.push_back(AccessOf(call, is_read_only(*tool, call)));
      continue;
    }
    const Limits& limits = LimitsFor(call.tool);
    const std::string deadline = std::to_string(limits.timeout.count());
    const sandbox::Confinement* confinement = nullptr;
    if (options_.sandbox) {
      const std::optional<sandbox::Profile> profile =
          options_.profile_for ? options_.profile_for(*tool, call) : sandbox::Profile{};
      if (profile) {
        confinement = &options_.sandbox->For(*profile);
        if (profile->access == sandbox::Access::kWorkspaceWrite) writing_calls.push_back(i);
      }
    }
    std::unique_ptr<hostapi::HostChannel> channel;
    if (options_.host_api && WantsHostChannel(*tool)) {
      auto opened = hostapi::HostChannel::Open(options_.host_api, call.tool);
      if (!opened) {
        results[i].wrapped = protocol::WrapFailure(
            code::kToolCrashed, Quoted(call.tool) + " could not be given its host channel: " +
                                    opened.error() + ". Try again.");
        continue;
      }
      channel = std::move(*opened);
    }
    // A tool with settings or secrets of its own has an environment of its
    // own; the others share one per deadline, profile and channel.
    const auto settings = options_.tool_env.find(call.tool);
    const bool own_env = settings != options_.tool_env.end() || !tool->schema.env.empty();
    const std::string env_key = deadline +
                                (confinement != nullptr ? "/" + confinement->description : "") +
                                (channel ? "/host" : "") + (own_env ? "/tool:" + call.tool : "");
    auto env = env_by_key.find(env_key);
    if (env == env_by_key.end()) {
      std::vector<std::pair<std::string, std::string>> overrides = {
          {"IKIGAI_TOOL_DEADLINE_MS", deadline}};
      if (channel) overrides.emplace_back("IKIGAI_HOST_FD", "3");
      if (settings != options_.tool_env.end()) {
        for (const auto& [name, value] : settings->second) overrides.emplace_back(name, value);
      }
      // The secrets its schema names ("env"), never a provider's key.
      std::vector<std::string> passthrough = options_.env_passthrough;
      for (const std::string& name : tool->schema.env) {
        if (!spawning::IsProviderKeyName(name)) passthrough.push_back(name);
      }
      if (confinement != nullptr) {
        overrides.emplace_back("IKIGAI_SANDBOX", confinement->description);
        // A TMPDIR the sandbox may not let tools write ($HOME, say) gave way
        // to /tmp (sandbox/workspace.h): tools are told, so that they can
        // make their temporary files.
        const char* host_tmp = std::getenv("TMPDIR");
        const std::string& temp_dir = options_.sandbox->settings().temp_dir;
        if (host_tmp != nullptr && *host_tmp != '\0' && temp_dir != host_tmp) {
          overrides.emplace_back("TMPDIR", temp_dir);
        }
      }
      env = env_by_key.emplace(env_key, spawning::ToolEnvironment(overrides, passthrough)).first;
    }
    spawning::Job job;
    job.spawn.path = tool->path;
    job.spawn.argv = {tool->path};
    job.spawn.env = env->second;
    if (confinement != nullptr) {
      job.spawn.pre_exec = confinement->pre_exec;
      job.spawn.pre_exec_context = confinement->context;
    }
    job.input = call.arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    job.stdout_limit = limits.output_limit;
    job.stderr_limit = limits.stderr_limit;
    job.timeout = limits.timeout;
    if (channel) {
      job.spawn.fd3 = channel->tool_end();
      job.after_spawn = [raw = channel.get()] { raw->CloseToolEnd(); };
      channels.push_back(std::move(channel));
    }
    jobs.push_back(std::move(job));
    job_call.push_back(i);
    remote.push_back(nullptr);
    accesses.push_back(AccessOf(call, is_read_only(*tool, call)));
  }

  std::optional<sandbox::ProtectedSnapshot> before;
  if (!writing_calls.empty())
    before = sandbox::TakeSnapshot(sandbox::ProtectedPaths(options_.sandbox->settings()));
  // One RunAll per wave; once cancelled, the later waves start nothing.
  const std::vector<std::size_t> waves = AssignWaves(accesses);
  const std::size_t wave_count =
      waves.empty() ? 0 : *std::max_element(waves.begin(), waves.end()) + 1;
  for (std::size_t wave = 0; wave < wave_count; ++wave) {
    std::vector<spawning::Job> wave_jobs;
    std::vector<std::size_t> wave_members;
    std::vector<std::thread> remote_calls;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (waves[k] != wave) continue;
      if (remote[k] != nullptr) {
        remote_calls.push_back(base::ThreadWithoutSignals([&, k] {
          CallResult& result = results[job_call[k]];
          const auto start = std::chrono::steady_clock::now();
          RemoteTools& runner = remote[k]->source == registry::Source::kHost
                                    ? *options_.host_tools
                                    : *options_.remote_tools;
          result.wrapped = runner.Call(*remote[k], calls[job_call[k]].arguments, cancel_fd);
          result.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - start);
        }));
        continue;
      }
      wave_jobs.push_back(std::move(jobs[k]));
      wave_members.push_back(k);
    }
    const std::vector<JobOutcome> outcomes =
        wave_jobs.empty() ? std::vector<JobOutcome>() : spawning::RunAll(wave_jobs, cancel_fd);
    for (std::thread& call : remote_calls) call.join();
    for (std::size_t m = 0; m < outcomes.size(); ++m) {
      CallResult& result = results[job_call[wave_members[m]]];
      result.wrapped = Wrap(result.tool, outcomes[m], LimitsFor(result.tool));
      result.elapsed = outcomes[m].elapsed;
    }
  }
  if (before) {
    const std::vector<std::string> changed = sandbox::ChangedPaths(
        *before, sandbox::TakeSnapshot(sandbox::ProtectedPaths(options_.sandbox->settings())));
    if (!changed.empty()) {
      for (std::size_t i : writing_calls) {
        results[i].wrapped["protected_paths_changed"] = changed;
        results[i].wrapped["warning"] =
            "Protected paths changed during this batch of calls: git hooks, git config and "
            ".ikigai/ run code later, so the user has been told. Do not change them; if a "
            "change there is needed, ask the user to make it.";
      }
    }
  }
  return results;
}

}  // namespace ikigai::executor
