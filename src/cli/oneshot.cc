#include "cli/oneshot.h"

#include <signal.h>
#include <unistd.h>

#include <iostream>

#include "agent/session_log.h"
#include "executor/executor.h"

namespace ikigai::cli {
namespace {

agent::Cancellation* g_cancellation = nullptr;

// The first Ctrl+C stops the turn (stream closed, tool groups killed); a
// second one, before the first took effect, ends ikigai at once.
void OnInterrupt(int) {
  if (g_cancellation == nullptr || g_cancellation->requested()) ::_exit(130);
  g_cancellation->Request();
}

std::string OneLine(std::string text, std::size_t max) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() > max) text = text.substr(0, max - 3) + "...";
  return text;
}

}  // namespace

std::string SummarizeCall(const providers::ToolCall& call) {
  const auto args =
      nlohmann::json::parse(call.arguments.empty() ? "{}" : call.arguments, nullptr, false);
  std::string what;
  if (args.is_object()) {
    for (const char* key : {"command", "file_path", "pattern"}) {
      if (auto it = args.find(key); it != args.end() && it->is_string()) {
        what = it->get<std::string>();
        break;
      }
    }
    if (auto path = args.find("path"); path != args.end() && path->is_string() && !what.empty()) {
      what += " in " + path->get<std::string>();
    }
  }
  if (what.empty()) what = call.arguments;
  return call.name + ": " + OneLine(what, 100);
}

std::string SummarizeResult(const protocol::WrappedJson& wrapped) {
  if (!wrapped.value("tool_success", false))
    return wrapped.value("error_code", std::string("failed"));
  const auto& result = wrapped["result"];
  std::string summary = "ok";
  if (result.is_object()) {
    if (result.contains("error_code") && result["error_code"].is_string()) {
      summary = result["error_code"].get<std::string>();
    } else if (result.value("timed_out", false)) {
      summary = "timed out";
    } else if (result.contains("exit_code") && result["exit_code"].is_number_integer() &&
               result["exit_code"].get<int>() != 0) {
      summary = "exit " + std::to_string(result["exit_code"].get<int>());
    }
    if (result.value("truncated", false)) summary += ", truncated";
  }
  return summary;
}

int RunOneShot(const HostContext& host, const OneShotOptions& options, std::ostream& out,
               std::ostream& err) {
  const config::AgentConfig& agent_config = host.config.agent;
  auto settings = ProviderSettingsFor(agent_config, options.flags);
  if (!settings) {
    err << "ikigai: " << settings.error() << "\n";
    return 2;
  }
  if (settings->api_key.empty()) {
    err << "ikigai: no API key for the " << settings->kind << " provider. "
        << (settings->kind == "anthropic"
                ? "Set ANTHROPIC_API_KEY, or OPENAI_API_KEY with --provider openai"
                : "Set OPENAI_API_KEY (any value, e.g. none, for a local server), or "
                  "ANTHROPIC_API_KEY with --provider anthropic")
        << "; or put the key in ~/.ikigai/config.json (see docs/configuration.md). "
           "The tool commands (ikigai tool ...) work without one.\n";
    return 2;
  }
  const std::string model = ModelFor(agent_config, options.flags, settings->kind);
  auto provider = providers::MakeProvider(*settings);

  // The session: resumed, or new.
  std::vector<providers::Message> history;
  std::unique_ptr<agent::SessionLog> log;
  const std::string sessions = agent::DefaultSessionDirectory();
  if (options.resume) {
    auto loaded = agent::LoadSession(sessions, *options.resume);
    if (!loaded) {
      err << "ikigai: cannot resume: " << loaded.error() << "\n";
      return 2;
    }
    history = std::move(loaded->messages);
    auto reopened = agent::SessionLog::Reopen(loaded->path, loaded->id);
    if (reopened) log = std::move(*reopened);
  } else {
    char cwd[4096];
    auto created = agent::SessionLog::Create(
        sessions, {{"provider", settings->kind},
                   {"model", model},
                   {"cwd", ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : ""}});
    if (created) {
      log = std::move(*created);
    } else {
      err << "ikigai: warning: the session will not be saved: " << created.error() << "\n";
    }
  }

  registry::RegistryHolder registry;
  registry.Set(host.registry);
  const executor::Executor executor(host.config.tools);
  const agent::PermissionPolicy permissions;
  agent::Agent agent(
      *provider, registry, executor,
      {model, SystemPromptFor(agent_config), agent_config.max_rounds, agent_config.max_tokens},
      permissions, log.get());
  agent.SetMessages(std::move(history));

  agent::AgentObserver observer;
  if (!options.json_output) {
    observer.on_text = [&out](std::string_view text) { out << text << std::flush; };
  }
  observer.on_tool_start = [&err](const providers::ToolCall& call) {
    err << "[tool] " << SummarizeCall(call) << "\n";
  };
  observer.on_tool_end = [&err](const providers::ToolCall& call,
                                const protocol::WrappedJson& wrapped,
                                std::chrono::microseconds elapsed) {
    err << "[tool] " << call.name << " -> " << SummarizeResult(wrapped) << " ("
        << elapsed.count() / 1000 << " ms)\n";
  };

  observer.on_retry = [&err](std::string_view reason, std::chrono::milliseconds wait) {
    err << "[retry] " << reason << "; trying again in " << wait.count() << " ms\n";
  };

  agent::Cancellation cancellation;
  g_cancellation = &cancellation;
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  ::sigemptyset(&action.sa_mask);
  struct sigaction previous {};
  ::sigaction(SIGINT, &action, &previous);
  auto outcome = agent.Prompt(options.prompt, observer, cancellation);
  ::sigaction(SIGINT, &previous, nullptr);
  g_cancellation = nullptr;

  if (!outcome) {
    if (!options.json_output) out << "\n";
    err << "ikigai: " << outcome.error().message << "\n";
    if (log) err << "The conversation is saved: ikigai --resume " << log->id() << "\n";
    return 1;
  }
  if (options.json_output) {
    nlohmann::ordered_json j = {{"text", outcome->text},
                                {"tool_calls", nlohmann::ordered_json::array()}};
    for (const auto& exchange : outcome->tools) {
      const auto args = nlohmann::ordered_json::parse(exchange.call.arguments, nullptr, false);
      j["tool_calls"].push_back(
          {{"id", exchange.call.id},
           {"name", exchange.call.name},
           {"arguments",
            args.is_discarded() ? nlohmann::ordered_json(exchange.call.arguments) : args},
           {"result", exchange.wrapped}});
    }
    j["usage"] = {{"input_tokens", outcome->usage.input_tokens},
                  {"output_tokens", outcome->usage.output_tokens}};
    j["rounds"] = outcome->rounds;
    if (log) j["session"] = log->id();
    if (outcome->cancelled) j["interrupted"] = true;
    if (outcome->round_limit_reached) j["round_limit_reached"] = true;
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (!outcome->text.empty() && outcome->text.back() != '\n') {
    out << "\n";
  }
  if (outcome->cancelled) {
    err << "ikigai: interrupted\n";
    return 130;
  }
  if (outcome->round_limit_reached) {
    err << "ikigai: stopped after " << agent_config.max_rounds
        << " rounds (max_rounds); the model was still calling tools. Resume with ikigai --resume"
        << (log ? " " + log->id() : std::string()) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ikigai::cli
