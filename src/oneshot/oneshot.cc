#include "oneshot/oneshot.h"

#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <iterator>

#include "agent/session_log.h"
#include "base/todos.h"
#include "base/visible_text.h"
#include "executor/executor.h"
#include "hostapi/user_requests.h"
#include "session/approval.h"
#include "session/call_summary.h"
#include "session/session_hooks.h"
#include "session/skill_listing.h"
#include "session/tool_sandbox.h"
#include "subagents/subagent_service.h"

namespace ikigai::oneshot {
namespace {

agent::Cancellation* g_cancellation = nullptr;
volatile sig_atomic_t g_signal = 0;

// The signals that stop a turn: Ctrl+C, and a supervisor's SIGTERM or a
// closed terminal's SIGHUP, which would otherwise kill ikigai and leave its
// tools running in their own process groups.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The first signal stops the turn (stream closed, tool groups killed); a
// second one, before the first took effect, ends ikigai at once.
void OnInterrupt(int sig) {
  if (g_cancellation == nullptr || g_cancellation->requested()) ::_exit(128 + sig);
  g_signal = sig;
  g_cancellation->Request();
}

std::string_view ErrorCode(providers::ErrorKind kind) {
  switch (kind) {
    case providers::ErrorKind::kAuth:
      return failure_code::kAuth;
    case providers::ErrorKind::kRateLimited:
      return failure_code::kRateLimited;
    case providers::ErrorKind::kServer:
      return failure_code::kServerError;
    case providers::ErrorKind::kNetwork:
      return failure_code::kNetworkError;
    case providers::ErrorKind::kProtocol:
      return failure_code::kProtocolError;
    case providers::ErrorKind::kContextTooLong:
      return failure_code::kContextTooLong;
    case providers::ErrorKind::kCancelled:
      return failure_code::kCancelled;
  }
  return failure_code::kError;
}

}  // namespace

void PrintJsonFailure(std::ostream& out, std::string_view code, std::string_view message,
                      const std::string& session) {
  nlohmann::ordered_json j = {{"error", message}, {"error_code", code}};
  if (!session.empty()) j["session"] = session;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

int RunOneShot(const session::HostContext& host, const OneShotOptions& options, std::ostream& out,
               std::ostream& err) {
  const config::AgentConfig& agent_config = host.config.agent;
  // Whatever fails, --output json prints one object: a caller (a script, a
  // subagent's parent) parses stdout and must find why.
  const auto fail = [&](std::string_view code, const std::string& message, int status,
                        const std::string& session = "") {
    err << "ikigai: " << VisibleText(message, Layout::kKeep) << "\n";
    if (options.json_output) PrintJsonFailure(out, code, message, session);
    return status;
  };
  auto settings = session::ProviderSettingsFor(agent_config, options.flags);
  if (!settings) return fail(failure_code::kConfigError, settings.error(), 2);
  if (settings->api_key.empty()) {
    return fail(failure_code::kAuth, session::MissingKeyMessage(settings->kind), 2);
  }
  const std::string model = session::ModelFor(agent_config, options.flags, settings->kind);
  auto provider = providers::MakeProvider(*settings);

  // The session: resumed, or new.
  std::vector<providers::Message> history;
  std::unique_ptr<agent::SessionLog> log;
  if (options.resume) {
    auto resumed = session::ResumeSession(*options.resume);
    if (!resumed) return fail(failure_code::kResumeFailed, "cannot resume: " + resumed.error(), 2);
    for (const std::string& warning : resumed->warnings)
      err << "ikigai: warning: " << VisibleText(warning, Layout::kKeep) << "\n";
    history = std::move(resumed->messages);
    log = std::move(resumed->log);
  } else {
    auto created = session::CreateSessionLog(settings->kind, model);
    if (created) {
      log = std::move(*created);
    } else {
      err << "ikigai: warning: the session will not be saved: "
          << VisibleText(created.error(), Layout::kKeep) << "\n";
    }
  }

  registry::RegistryHolder registry;
  registry.Set(host.skills ? host.skills->WithSkillTools(host.registry) : host.registry);
  // A skill loaded by the model adds its tools to this registry (until the
  // run ends).
  if (host.skills) host.skills->Attach(&registry);
  struct Detach {
    skills::SkillSession* skills;
    ~Detach() {
      if (skills != nullptr) skills->Attach(nullptr);
    }
  } detach{host.skills.get()};
  // Nobody can answer a question here: "ask" means refused (PERMISSION_DENIED).
  auto permissions = session::MakeApprovalPolicy(host, nullptr);
  if (!permissions) return fail(failure_code::kConfigError, permissions.error(), 2);
  // The `task` tool's subagents: ended with this one-shot run.
  const auto subagent_service = std::make_shared<subagents::SubagentService>(
      [&] { return session::SubagentSettingsFor(host, settings->kind, model, host.mode); });
  const executor::Executor executor = session::ExecutorFor(
      host, [&] { return host.mode; },
      std::make_shared<hostapi::HostMethods>(std::make_shared<hostapi::NoUser>(err),
                                             subagent_service));
  for (const auto& line : session::NoticeLines(host.sandbox_notice))
    err << "ikigai: " << line << "\n";
  for (const auto& line : session::NoticeLines(host.mcp_notice)) err << "ikigai: " << line << "\n";
  if (host.skills) {
    for (const std::string& line : session::SkillProblemLines(*host.skills->catalog()))
      err << "ikigai: warning: " << line << "\n";
  }
  const agent::ComposedPrompt system_prompt = session::SystemPromptFor(host, host.mode, model);
  if (!system_prompt.problem.empty())
    err << "ikigai: warning: " << VisibleText(system_prompt.problem, Layout::kKeep) << "\n";
  agent::Agent agent(*provider, registry, executor,
                     session::AgentOptionsFor(agent_config, model, system_prompt.text),
                     **permissions, log.get());
  agent.SetMessages(std::move(history));
  // The hooks' lines (a hook that failed, exited with an error) on stderr.
  const std::unique_ptr<hooks::Hooks> hooks = session::MakeHooks(
      host, [&] { return host.mode; },
      [&err](const std::string& line) {
        err << "ikigai: " << VisibleText(line, Layout::kOneLine) << "\n";
      });
  if (hooks) {
    hooks->SetSession(log ? log->id() : "", log ? log->path() : "");
    agent.SetHooks(hooks.get());
  }

  agent::AgentObserver observer;
  // Whether stdout holds streamed text not yet ended by a newline: it is
  // ended before a tool's progress line (text, then tools, then more text
  // read as separate lines) and at the end.
  bool line_open = false;
  // On a terminal the answer's controls are shown, never obeyed; piped, the
  // answer is passed on byte for byte.
  const bool terminal = options.stdout_is_terminal;
  VisibleStream visible;
  const auto end_line = [&out, &line_open, &visible, terminal] {
    if (terminal) {
      const std::string rest = visible.Finish();
      out << rest;
      if (!rest.empty()) line_open = rest.back() != '\n';
    }
    if (line_open) out << "\n" << std::flush;
    line_open = false;
  };
  if (!options.json_output) {
    observer.on_text = [&out, &line_open, &visible, terminal](std::string_view piece) {
      const std::string shown = terminal ? visible.Feed(piece) : std::string(piece);
      out << shown << std::flush;
      if (!shown.empty()) line_open = shown.back() != '\n';
    };
  }
  observer.on_tool_start = [&err, &end_line](const providers::ToolCall& call) {
    end_line();
    err << "[tool] " << session::SummarizeCall(call) << "\n";
  };
  todos::PlanWatcher plan;
  observer.on_tool_end = [&err, &plan](const providers::ToolCall& call,
                                       const protocol::WrappedJson& wrapped,
                                       std::chrono::microseconds elapsed) {
    err << "[tool] " << VisibleText(call.name, Layout::kOneLine) << " -> "
        << session::SummarizeResult(wrapped) << " (" << elapsed.count() / 1000 << " ms)\n";
    if (auto changed = plan.Changed()) {
      if (changed->empty()) err << "[plan] (cleared)\n";
      for (const std::string& line : todos::ChecklistLines(*changed))
        err << "[plan] " << VisibleText(line, Layout::kOneLine) << "\n";
    }
  };

  observer.on_retry = [&err](std::string_view reason, std::chrono::milliseconds wait) {
    err << "[retry] " << VisibleText(reason, Layout::kOneLine) << "; trying again in "
        << wait.count() << " ms\n";
  };
  observer.on_compaction = [&err](const agent::Compaction& compaction) {
    err << "[compact] " << session::CompactionLine(compaction) << "\n";
  };
  observer.on_task_notes = [&err, &end_line](const std::vector<std::string>& lines) {
    end_line();
    for (const std::string& line : lines)
      err << "[task] " << VisibleText(line, Layout::kOneLine) << "\n";
  };
  if (subagents::IsSubagent()) {
    // The parent shows the usage of its subagents as it comes (/status).
    observer.on_usage = [&err](const providers::Usage& usage) {
      err << "[usage] " << providers::UsageJson(usage).dump() << "\n" << std::flush;
    };
  }

  agent::Cancellation cancellation;
  g_cancellation = &cancellation;
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  ::sigemptyset(&action.sa_mask);
  struct sigaction previous[std::size(kStopSignals)] = {};
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    ::sigaction(kStopSignals[i], &action, &previous[i]);
  }
  if (hooks) hooks->SessionStart(options.resume ? "resume" : "startup", cancellation.fd());
  auto outcome = agent.Prompt(options.prompt, observer, cancellation);
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    ::sigaction(kStopSignals[i], &previous[i], nullptr);
  }
  g_cancellation = nullptr;
  end_line();

  if (!outcome) {
    const int status =
        fail(ErrorCode(outcome.error().kind), outcome.error().message, 1, log ? log->id() : "");
    if (log) err << "The conversation is saved: ikigai --resume " << log->id() << "\n";
    return status;
  }
  if (!outcome->refused.empty() && !outcome->cancelled) {
    return fail(failure_code::kPromptRefused,
                "a UserPromptSubmit hook refused the prompt: " + outcome->refused, 1,
                log ? log->id() : "");
  }
  if (options.json_output) {
    nlohmann::ordered_json j = {{"text", outcome->text},
                                {"tool_calls", nlohmann::ordered_json::array()}};
    // A subagent's parent reads the text, rounds and usage: every call's
    // whole result would only make the answer large.
    if (!subagents::IsSubagent()) {
      for (const auto& exchange : outcome->tools) {
        // "" is a call without arguments: the tool got {}.
        const std::string& text = exchange.call.arguments;
        const auto args = nlohmann::ordered_json::parse(text.empty() ? "{}" : text, nullptr, false);
        j["tool_calls"].push_back(
            {{"id", exchange.call.id},
             {"name", exchange.call.name},
             {"arguments",
              args.is_discarded() ? nlohmann::ordered_json(exchange.call.arguments) : args},
             {"result", exchange.wrapped}});
      }
    }
    j["usage"] = providers::UsageJson(outcome->usage);
    j["rounds"] = outcome->rounds;
    if (log) j["session"] = log->id();
    if (outcome->cancelled) j["interrupted"] = true;
    if (outcome->round_limit_reached) j["round_limit_reached"] = true;
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  if (outcome->cancelled) {
    err << "ikigai: interrupted\n";
    return 128 + (g_signal != 0 ? g_signal : SIGINT);
  }
  if (outcome->round_limit_reached) {
    err << "ikigai: stopped after " << agent_config.max_rounds
        << " rounds (max_rounds); the model was still calling tools. Resume with ikigai --resume"
        << (log ? " " + log->id() : std::string()) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ikigai::oneshot
