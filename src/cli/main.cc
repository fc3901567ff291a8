// ikigai's command line: parses the flags and dispatches to a front end
// (src/repl/, src/oneshot/, src/toolcmd/), all built on src/session/.
//
//   ikigai [--resume [ID]]          the interactive REPL (src/repl/), on a new
//          [--provider P] [--model M] session or a logged one
//   ikigai tool list                the tools found, then discovery problems
//   ikigai tool show NAME           a tool's path and schema
//   ikigai tool call NAME [ARGS|-]  call a tool; print the wrapper the model sees
//          [--sandbox]              (confined as the agent's calls are)
//   ikigai tool check PATH...       check an executable against the protocol
//   ikigai -p PROMPT                one-shot: stream the answer, run the tools
//          [--provider P] [--model M] [--output text|json] [--resume [ID]]
//          [--max-rounds N]
//   ikigai trust [DIR]              trust a folder's .ikigai/ (tools, config)
//   ikigai untrust [DIR]            stop trusting it
//   ikigai mcp serve [--http [HOST:]PORT] [--permissions MODE]
//                                   offer the tools to MCP clients (src/mcpserver/)
//   ikigai --version
// --trust trusts the working directory for one run (REPL, -p, tool).
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "base/format.h"
#include "base/visible_text.h"
#include "mcpserver/serve.h"
#include "oneshot/oneshot.h"
#include "repl/repl.h"
#include "repl/trust_prompt.h"
#include "sandbox/host.h"
#include "session/host_context.h"
#include "session/tool_listing.h"
#include "session/tool_sandbox.h"
#include "session/trust.h"
#include "spawning/host_guard.h"
#include "subagents/subagent.h"
#include "toolcmd/tool_check.h"
#include "toolcmd/tool_commands.h"

namespace ikigai::cli {
namespace {

// Whether the command line asks for --output json, read before (or
// without) a successful parse.
bool AsksForJson(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--output=json" ||
        (arg == "--output" && i + 1 < argc && std::string_view(argv[i + 1]) == "json")) {
      return true;
    }
  }
  return false;
}

int Run(int argc, char** argv) {
  CLI::App app{"ikigai: a terminal coding agent whose every tool is an external executable."};
  app.set_version_flag("--version,-V", std::string("ikigai ") + IKIGAI_VERSION);

  std::string prompt, provider, model, output = "text", resume_id;
  CLI::Option* prompt_option =
      app.add_option("-p,--prompt", prompt,
                     "One-shot: answer PROMPT (or the prompt read from stdin when it is - or "
                     "missing), then exit")
          ->expected(0, 1);
  app.add_option("--provider", provider,
                 "openai, anthropic or gemini (default: from the configuration)");
  app.add_option("--model", model, "The model's name (default: from the configuration)");
  app.add_option("--output", output, "text (streamed) or json (one object at the end)")
      ->check(CLI::IsMember({"text", "json"}));
  CLI::Option* resume_option =
      app.add_option("--resume", resume_id, "Continue the last session, or session ID")
          ->expected(0, 1);
  std::string permissions_mode;
  app.add_option("--permissions", permissions_mode,
                 "What runs without asking: read-only, ask (default), auto-edit, auto, "
                 "unrestricted (no sandbox); see docs/security.md")
      ->check(CLI::IsMember({"read-only", "ask", "auto-edit", "auto", "unrestricted"}));
  int max_rounds = 0;
  app.add_option("--max-rounds", max_rounds,
                 "Stop a prompt after N rounds of tool calls (default: agent.max_rounds, 50)")
      ->check(CLI::PositiveNumber);
  bool trust_once = false;
  app.add_flag("--trust", trust_once,
               "Trust this folder's .ikigai/ (tools, config) for this run only");

  std::string trust_dir = ".";
  CLI::App* trust =
      app.add_subcommand("trust", "Trust a folder: its .ikigai/ (tools, config) loads from now on");
  trust->add_option("DIR", trust_dir, "The folder (default: the working directory)");
  std::string untrust_dir = ".";
  CLI::App* untrust =
      app.add_subcommand("untrust", "Stop trusting a folder: its .ikigai/ is skipped");
  untrust->add_option("DIR", untrust_dir, "The folder (default: the working directory)");

  CLI::App* tool = app.add_subcommand("tool", "Use the tools directly, without a model");
  tool->require_subcommand(1);

  CLI::App* list = tool->add_subcommand("list", "List the tools found, then discovery problems");

  std::string show_name;
  CLI::App* show = tool->add_subcommand("show", "Show a tool's path and schema");
  show->add_option("NAME", show_name, "Tool name, e.g. file_read")->required();

  std::string call_name, call_args = "{}";
  CLI::App* call = tool->add_subcommand(
      "call", "Call a tool and print the wrapped result; exit 0 if tool_success is true");
  call->add_option("NAME", call_name, "Tool name, e.g. bash")->required();
  call->add_option("ARGS", call_args, "Arguments as a JSON object, or - to read them from stdin")
      ->capture_default_str();
  bool call_sandboxed = false;
  call->add_flag("--sandbox", call_sandboxed,
                 "Run the tool in the sandbox the agent would use (by default a call by hand "
                 "runs with your rights)");

  std::vector<std::string> check_paths;
  CLI::App* check = tool->add_subcommand(
      "check", "Check executables against the tool protocol; exit 1 if a rule is broken");
  check->add_option("PATH", check_paths, "Tool executables")->required();

  // `ikigai mcp ...`: a table, one entry per subcommand, each run with the
  // host (configuration, tools, sandbox) loaded for the mode it asks for.
  struct McpCommand {
    CLI::App* command;
    std::string default_permissions;  // when --permissions is not given
    std::function<int(const session::HostContext&)> run;
  };
  std::vector<McpCommand> mcp_commands;
  CLI::App* mcp = app.add_subcommand(
      "mcp", "Model Context Protocol: offer the tools to MCP clients (README: MCP)");
  mcp->require_subcommand(1);
  std::string serve_http;
  CLI::App* mcp_serve = mcp->add_subcommand(
      "serve", "Offer the tools to an MCP client: on stdin/stdout, or over HTTP with --http");
  CLI::Option* serve_http_option =
      mcp_serve->add_option("--http", serve_http,
                            "Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST "
                            "default 127.0.0.1; PORT 0: any free port, printed on stderr)");
  mcp_serve
      ->add_option("--permissions", permissions_mode,
                   "What tools may do: auto (default here: the MCP client approves), ask "
                   "(calls needing approval are refused), read-only, auto-edit, unrestricted")
      ->check(CLI::IsMember({"read-only", "ask", "auto-edit", "auto", "unrestricted"}));
  mcp_serve->add_flag("--trust", trust_once,
                      "Trust this folder's .ikigai/ (tools, config) for this run only");
  mcp_commands.push_back({mcp_serve, "auto", [&](const session::HostContext& host) {
                            mcpserver::ServeOptions options{std::nullopt, IKIGAI_VERSION};
                            if (*serve_http_option) options.http = serve_http;
                            return mcpserver::RunServe(host, options);
                          }});

  // What the sandbox allows on this machine, worked out only for --help.
  app.footer([] {
    config::ConfigFiles files = config::DefaultConfigFiles();
    files.project.clear();  // --help runs nothing of an untrusted folder
    const auto config = config::LoadConfig(files);
    auto sandbox = session::MakeSandbox(config ? *config : config::Config{});
    return "\nSandbox on this machine (every mode but unrestricted; docs/security.md):\n  " +
           (sandbox ? (*sandbox)->Summary() : sandbox.error()) + "\n";
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    // -p --output json prints one object whatever fails, a bad flag too.
    if (status != 0 && AsksForJson(argc, argv)) {
      oneshot::PrintJsonFailure(std::cout, oneshot::failure_code::kUsage, e.what(), "");
    }
    return status;
  }

  const session::ProjectStore store(session::ProjectStore::DefaultPath());
  if (*trust) return session::RecordTrust(trust_dir, true, store, std::cout, std::cerr);
  if (*untrust) return session::RecordTrust(untrust_dir, false, store, std::cout, std::cerr);
  // From here on tools may run: nothing they start may outlive this process,
  // and their scratch directory goes with it.
  const std::string session_dir = spawning::StartHostGuard();
  // A subagent shares its parent's session directory, not its plan
  // (base/todos.h). Before any thread reads the environment.
  if (!session_dir.empty() && subagents::IsSubagent()) {
    const std::string plan = session_dir + "/todos-" + std::to_string(::getpid()) + ".json";
    ::setenv("IKIGAI_TODOS_FILE", plan.c_str(), 1);
  }
  // Tools run as the same user: without this they could read the keys in
  // /proc/<this process>/environ and /proc/<this process>/mem (sandbox/host.h).
  // After the guard, which is a fresh image and reads only our /proc/PID/stat.
  if (const int error = sandbox::HideHostFromTools(); error != 0) {
    std::cerr << "ikigai: warning: could not make this process non-dumpable ("
              << std::strerror(error)
              << "): tools of your user may read its environment, API keys included\n";
  }
  char cwd[4096];
  session::TrustState trust_state =
      session::DecideTrust(::getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".", trust_once, store);

  if (*check) {
    config::ConfigFiles files = config::DefaultConfigFiles();
    if (!trust_state.trusted) files.project.clear();  // as everywhere: untrusted, not read
    auto config = config::LoadConfig(files);
    if (!config) {
      std::cerr << "ikigai: " << VisibleText(config.error(), Layout::kKeep) << "\n";
      return 2;
    }
    return toolcmd::CheckTools(check_paths, config->tools.defaults, std::cout,
                               config->schema_timeout);
  }
  if (*mcp) {
    if (!trust_state.trusted && !trust_state.contents.empty())
      std::cerr << session::SkippedMessage(trust_state) << "\n";
    for (const McpCommand& entry : mcp_commands) {
      if (!*entry.command) continue;
      auto host = session::LoadHostContext(
          trust_state, {permissions_mode.empty() ? entry.default_permissions : permissions_mode});
      if (!host) {
        std::cerr << "ikigai: " << VisibleText(host.error(), Layout::kKeep) << "\n";
        return 2;
      }
      return entry.run(*host);
    }
  }
  if (*call && call_args == "-") {
    call_args.assign(std::istreambuf_iterator<char>(std::cin), {});
  }
  if (!*prompt_option && !*tool) {
    // The REPL asks once per folder that has a .ikigai/ (a terminal only).
    repl::AskTrustIfNeeded(trust_state, store);
    if (!trust_state.trusted && !trust_state.contents.empty())
      std::cerr << session::SkippedMessage(trust_state) << "\n";
    // The REPL discovers the tools in the background: its prompt comes first.
    auto host = session::LoadHostConfig(trust_state, {permissions_mode});
    if (!host) {
      std::cerr << "ikigai: " << VisibleText(host.error(), Layout::kKeep) << "\n";
      return 2;
    }
    if (max_rounds > 0) host->config.agent.max_rounds = max_rounds;
    repl::ReplOptions options{{provider, model}, std::nullopt, IKIGAI_VERSION};
    if (*resume_option) options.resume = resume_id;
    return repl::RunRepl(std::move(*host), options);
  }
  if (!trust_state.trusted && !trust_state.contents.empty())
    std::cerr << session::SkippedMessage(trust_state) << "\n";
  session::HostOptions host_options{permissions_mode};
  if (*tool) {
    host_options.confine = call_sandboxed ? session::HostOptions::Confine::kAlways
                                          : session::HostOptions::Confine::kNever;
  }
  auto host = session::LoadHostContext(trust_state, host_options);
  // -p --output json prints one object whatever fails.
  const auto fail = [&](std::string_view code, const std::string& message) {
    std::cerr << "ikigai: " << VisibleText(message, Layout::kKeep) << "\n";
    if (*prompt_option && output == "json") oneshot::PrintJsonFailure(std::cout, code, message, "");
    return 2;
  };
  if (!host) return fail(oneshot::failure_code::kConfigError, host.error());
  if (max_rounds > 0) host->config.agent.max_rounds = max_rounds;
  if (*prompt_option) {
    if (prompt.empty() || prompt == "-")
      prompt.assign(std::istreambuf_iterator<char>(std::cin), {});
    if (IsBlank(prompt)) {
      return fail(oneshot::failure_code::kInvalidArg,
                  "the prompt is empty. Give it as ikigai -p \"...\" or on stdin.");
    }
    oneshot::OneShotOptions options{
        prompt, output == "json", {provider, model}, std::nullopt, ::isatty(STDOUT_FILENO) == 1};
    if (*resume_option) options.resume = resume_id;
    return oneshot::RunOneShot(*host, options, std::cout, std::cerr);
  }
  // MCP servers given up: said by every tool command.
  for (const auto& line : session::NoticeLines(host->mcp_notice)) {
    std::cerr << "ikigai: " << line << "\n";
  }
  if (*list) return session::ListTools(*host, std::cout);
  if (*show) return session::ShowTool(*host, show_name, std::cout, std::cerr);
  for (const auto& line : session::NoticeLines(host->sandbox_notice)) {
    std::cerr << "ikigai: " << line << "\n";
  }
  return toolcmd::CallTool(*host, call_name, call_args, std::cout);
}

}  // namespace
}  // namespace ikigai::cli

int main(int argc, char** argv) {
  ikigai::spawning::RunHostGuardIfAsked(argc, argv);  // returns unless it is one
  // Each round of a long session builds a request a little larger than the
  // last (the whole conversation). glibc would map every buffer above its
  // largest freed one afresh, and give the heap's top back after each
  // round: a page fault per 4 KB of every request, growing with the
  // session. Kept instead, the same memory serves the next round.
  ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 128 << 20);
  return ikigai::cli::Run(argc, argv);
}
