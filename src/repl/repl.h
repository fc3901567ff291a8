// The interactive REPL: `ikigai` with no arguments (DECISIONS §5, issue 6).
//
// The prompt appears at once; discovery runs in the background and a
// message waits for it only if it has not finished. Messages go to the
// agent (the answer streams, each tool call is one line and its outcome
// another); lines starting with '/' are commands (commands.h). Ctrl+C stops
// a turn; Ctrl+D on an empty line, /quit, or Ctrl+C twice at an empty
// prompt leave. Sessions are logged as in one-shot mode; `--resume [ID]`
// continues one. Without a provider key the commands still work and a
// message says how to configure one.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "agent/agent.h"
#include "repl/commands.h"
#include "repl/discovery_task.h"
#include "repl/display.h"
#include "repl/line_editor.h"
#include "repl/user_prompt.h"
#include "session/agent_setup.h"
#include "session/approval.h"
#include "session/host_context.h"
#include "session/session_hooks.h"
#include "subagents/subagent_service.h"

namespace ikigai::repl {

struct ReplOptions {
  session::AgentFlags flags;
  std::optional<std::string> resume;  // a session id, or "" for the last one
  std::string version;                // for the banner
  // Whether tools' questions are asked (stdin is a terminal); piped lines
  // are the user's script, not answers: the tools get NO_USER.
  bool asks_questions = true;
};

class Repl {
 public:
  // `host.registry` is ignored: the REPL discovers the tools itself.
  Repl(session::HostContext host, ReplOptions options, LineReader& reader, Display& display);
  ~Repl();

  // Until /quit, Ctrl+D or Ctrl+C twice; the exit status (2 when the
  // options are wrong: an unknown provider, a session that cannot resume;
  // 128 + N after SIGTERM or SIGHUP).
  int Run();

 private:
  bool Start();                            // the banner, the provider, the resumed session
  std::optional<std::string> ReadInput();  // a message or command; nullopt: quit
  bool Dispatch(const std::string& line);  // false: quit
  void Send(const std::string& message);
  void Compact(const std::string& focus);
  void ShowStatus();
  // The agent, made at the first message (or /compact) with the session log.
  agent::Agent& EnsureAgent();
  agent::AgentObserver Observer(std::size_t& running);
  // Runs `work` as a turn: Ctrl+C cancels it, the discovery it needs first.
  bool BeginTurn();
  bool RunCommand(const Command& command, const std::string& argument);  // false: quit
  void ShowModel(const std::string& argument);
  void Refresh();
  void Clear();
  bool EnsureDiscovered(int cancel_fd);
  std::string TakeDiscoveryReport();
  // `registry` with the MCP servers' tools; lines to say go to `notices`.
  std::shared_ptr<const registry::Registry> WithMcp(
      std::shared_ptr<const registry::Registry> registry, std::vector<std::string>& notices);
  void ReportDiscovery();
  session::HostContext& Host();
  void Farewell();
  session::Answer Ask(const session::Question& question);
  void ShowPermissions(const std::string& argument);
  void ShowTasks();
  void LoadSkill(const std::string& name);
  // The permission mode now (the policy's, once the session started).
  permissions::Mode Mode() const;

  session::HostContext host_;
  ReplOptions options_;
  LineReader& reader_;
  Display& display_;
  registry::RegistryHolder registry_;
  // Said with the discovery report: MCP servers given up (written by the
  // discovery thread before it is done, so declared before it: the thread
  // is joined first).
  std::vector<std::string> mcp_notices_;
  DiscoveryTask discovery_;
  bool discovery_reported_ = false;
  // The task tool's subagents: stopped when the REPL ends.
  const std::shared_ptr<subagents::SubagentService> subagents_;
  // Tools' questions and progress lines (the host channel).
  const std::shared_ptr<TerminalUser> user_;
  const executor::Executor executor_;
  std::unique_ptr<session::ApprovalPolicy> permissions_;
  std::unique_ptr<hooks::Hooks> hooks_;  // null: none configured
  // What SessionStart hooks are told when the next agent is made.
  std::string session_source_ = "startup";

  std::string provider_kind_;
  std::string model_;
  std::unique_ptr<providers::Provider> provider_;  // null without a key
  std::string missing_key_;                        // why there is no provider
  std::unique_ptr<agent::SessionLog> log_;         // created at the first message
  std::unique_ptr<agent::Agent> agent_;
  std::vector<providers::Message> resumed_;  // given to the agent when it is made
  providers::Usage usage_;                   // the session's requests, summed
  std::vector<std::string> resume_warnings_;
  // Skills loaded with /skill since the last message: their results go to
  // the model at the start of the next one.
  std::string loaded_skills_;
  agent::Cancellation cancellation_;
  int interrupts_at_empty_prompt_ = 0;
  todos::PlanWatcher plan_;  // shown when todo_write changes it
};

// The REPL on this process's terminal: libedit when stdin is a terminal,
// plain lines otherwise; colours per Style::Detect.
int RunRepl(session::HostContext host, const ReplOptions& options);

}  // namespace ikigai::repl
