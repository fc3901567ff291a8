#include "repl/repl.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <clocale>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <utility>

#include "agent/compaction.h"
#include "base/format.h"
#include "base/task_files.h"
#include "base/visible_text.h"
#include "permissions/policy.h"
#include "session/agent_setup.h"
#include "session/call_summary.h"
#include "session/edit_preview.h"
#include "session/mcp_tools.h"
#include "session/task_status.h"
#include "session/tool_sandbox.h"

#include "repl/signals.h"
#include "session/skill_listing.h"
#include "session/tool_listing.h"

namespace ikigai::repl {
namespace {

constexpr const char* kPrompt = "> ";
// Lines of an edit's diff shown before the approval question; v shows all.
constexpr std::size_t kPreviewLines = 60;
constexpr const char* kContinuationPrompt = "  ";

// A line ending in one backslash continues on the next.
bool Continues(const std::string& line) {
  return !line.empty() && line.back() == '\\' && (line.size() < 2 || line[line.size() - 2] != '\\');
}

}  // namespace

Repl::Repl(session::HostContext host, ReplOptions options, LineReader& reader, Display& display)
    : host_(std::move(host)),
      options_(std::move(options)),
      reader_(reader),
      display_(display),
      discovery_(host_.directories, session::DiscoveryOptionsFor(host_),
                 [this](std::shared_ptr<const registry::Registry> registry) {
                   return WithMcp(std::move(registry), mcp_notices_);
                 }),
      subagents_(std::make_shared<subagents::SubagentService>(
          [this] { return session::SubagentSettingsFor(host_, provider_kind_, model_, Mode()); })),
      user_(std::make_shared<TerminalUser>(reader_, display_, [this] { return &cancellation_; })),
      executor_(session::ExecutorFor(
          host_, [this] { return Mode(); },
          std::make_shared<hostapi::HostMethods>(options_.asks_questions ? user_ : nullptr,
                                                 subagents_))) {
  // A skill the model loads adds its tools to the registry the agent reads.
  if (host_.skills) host_.skills->Attach(&registry_);
}

permissions::Mode Repl::Mode() const { return permissions_ ? permissions_->mode() : host_.mode; }

Repl::~Repl() {
  if (host_.skills) host_.skills->Attach(nullptr);
  // A server still starting would hold the discovery thread, and so the
  // exit, for up to its startup timeout.
  if (host_.mcp) host_.mcp->StopAll();
}

session::HostContext& Repl::Host() {
  host_.registry = registry_.Get();
  return host_;
}

bool Repl::Start() {
  const config::AgentConfig& agent_config = host_.config.agent;
  auto settings = session::ProviderSettingsFor(agent_config, options_.flags);
  if (!settings) {
    display_.Error("ikigai: " + settings.error());
    return false;
  }
  auto permissions =
      session::MakeApprovalPolicy(host_, [this](const session::Question& q) { return Ask(q); });
  if (!permissions) {
    display_.Error("ikigai: " + permissions.error());
    return false;
  }
  permissions_ = std::move(*permissions);
  hooks_ = session::MakeHooks(
      host_, [this] { return Mode(); },
      [this](const std::string& line) {
        display_.StopSpinner();
        display_.EndLine();
        display_.Warning(line);
      });
  provider_kind_ = settings->kind;
  model_ = session::ModelFor(agent_config, options_.flags, settings->kind);
  if (options_.resume) {
    auto resumed = session::ResumeSession(*options_.resume);
    if (!resumed) {
      display_.Error("ikigai: cannot resume: " + resumed.error());
      return false;
    }
    resumed_ = std::move(resumed->messages);
    usage_ = resumed->usage;
    log_ = std::move(resumed->log);
    resume_warnings_ = std::move(resumed->warnings);
    session_source_ = "resume";
  }
  discovery_.Start();

  std::string banner = "ikigai";
  if (!options_.version.empty()) banner += " " + options_.version;
  banner += ": " + model_ + " (" + provider_kind_ + "). Type /help for the commands; Ctrl+D quits.";
  display_.Notice(banner);
  for (const auto& line : session::NoticeLines(host_.sandbox_notice)) display_.Warning(line);
  if (settings->api_key.empty()) {
    missing_key_ = session::MissingKeyMessage(settings->kind);
    display_.Warning("Note: " + missing_key_);
  } else {
    provider_ = providers::MakeProvider(*settings);
  }
  if (options_.resume) {
    display_.Notice("Resumed session " + (log_ ? log_->id() : *options_.resume) + " (" +
                    std::to_string(resumed_.size()) + " messages).");
    for (const std::string& warning : resume_warnings_) display_.Warning("Warning: " + warning);
  }
  return true;
}

int Repl::Run() {
  if (!Start()) return 2;
  for (;;) {
    ReportDiscovery();
    auto input = ReadInput();
    if (!input || signals::QuitSignal() != 0) break;
    if (!Dispatch(*input) || signals::QuitSignal() != 0) break;
  }
  Farewell();
  return signals::QuitSignal() != 0 ? 128 + signals::QuitSignal() : 0;
}

std::string Repl::TakeDiscoveryReport() {
  if (discovery_reported_ || !discovery_.done()) return "";
  discovery_reported_ = true;
  auto registry = discovery_.Wait();
  registry_.Set(registry);
  std::ostringstream problems;
  session::PrintDiscoveryProblems(*registry, problems);
  for (const std::string& line : mcp_notices_) problems << line << "\n";
  mcp_notices_.clear();
  if (host_.skills) {
    for (const std::string& line : session::SkillProblemLines(*host_.skills->catalog()))
      problems << "Debug: " << line << "\n";
  }
  return problems.str();
}

std::shared_ptr<const registry::Registry> Repl::WithMcp(
    std::shared_ptr<const registry::Registry> registry, std::vector<std::string>& notices) {
  for (std::string& line : session::NoticeLines(host_.mcp_notice)) notices.push_back(line);
  auto with_mcp = session::WithMcpTools(registry, host_.mcp.get(), notices);
  if (!with_mcp) notices.push_back(with_mcp.error());
  // The skill tool, and the tools of the skills loaded so far.
  if (with_mcp) registry = std::move(*with_mcp);
  return host_.skills ? host_.skills->WithSkillTools(std::move(registry)) : registry;
}

void Repl::ReportDiscovery() {
  if (const std::string report = TakeDiscoveryReport(); !report.empty())
    display_.Debug(report.substr(0, report.size() - 1));
  if (!discovery_reported_) {
    reader_.SetNotifier(discovery_.fd(), [this] {
      std::string report = TakeDiscoveryReport();
      // Dim like Display::Debug; the reader prints it above the prompt.
      if (!report.empty() && display_.style().color) report = "\033[2m" + report + "\033[0m";
      return report;
    });
  }
}

bool Repl::EnsureDiscovered(int cancel_fd) {
  if (!discovery_.done()) {
    display_.Spin("discovering tools");
    const bool finished = discovery_.Wait(cancel_fd) != nullptr;
    display_.StopSpinner();
    if (!finished) return false;
  }
  ReportDiscovery();
  return true;
}

std::optional<std::string> Repl::ReadInput() {
  std::string text;
  bool continued = false;
  for (;;) {
    ReadResult read = reader_.Read(continued ? kContinuationPrompt : kPrompt);
    switch (read.status) {
      case ReadResult::Status::kEnd:
      case ReadResult::Status::kAborted:  // no abort descriptor here: never
        if (display_.style().animate) display_.Output("\n");
        if (continued) return text;  // what was typed before Ctrl+D is sent
        return std::nullopt;
      case ReadResult::Status::kInterrupted:
        if (display_.style().animate) display_.Output("\n");
        if (continued || !read.line_empty) {  // the line is dropped; back to the prompt
          interrupts_at_empty_prompt_ = 0;
          text.clear();
          continued = false;
          continue;
        }
        if (++interrupts_at_empty_prompt_ >= 2) return std::nullopt;
        display_.Notice("(Press Ctrl+C again to quit, or type /quit.)");
        continue;
      case ReadResult::Status::kLine:
        break;
    }
    interrupts_at_empty_prompt_ = 0;
    if (Continues(read.text)) {
      read.text.pop_back();
      text += read.text + "\n";
      continued = true;
      continue;
    }
    return text + read.text;
  }
}

bool Repl::Dispatch(const std::string& line) {
  if (IsBlank(line)) return true;
  reader_.AddHistory(line);
  if (auto command_line = ParseCommandLine(line)) {
    const Command* command = FindCommand(command_line->name);
    if (command == nullptr) {
      display_.Error(UnknownCommandText(command_line->name));
      return true;
    }
    if (command->arguments == Arguments::kNone && !command_line->argument.empty()) {
      display_.Error("Usage: " + std::string(command->usage) + " (no arguments)");
      return true;
    }
    return RunCommand(*command, command_line->argument);
  }
  Send(line);
  return true;
}

bool Repl::RunCommand(const Command& command, const std::string& argument) {
  std::ostringstream out, err;
  switch (command.id) {
    case CommandId::kTool:
      EnsureDiscovered(-1);
      if (argument.empty()) {
        session::ListTools(Host(), out);
      } else {
        session::ShowTool(Host(), argument, out, err);
      }
      display_.Output(out.str());
      if (!err.str().empty()) display_.Error(err.str().substr(0, err.str().size() - 1));
      return true;
    case CommandId::kRefresh:
      Refresh();
      return true;
    case CommandId::kMcp:
      EnsureDiscovered(-1);
      display_.Output(session::McpStatusText(host_.mcp.get()) + "\n");
      return true;
    case CommandId::kSkills:
      display_.Output(host_.skills ? session::SkillsListing(*host_.skills) : "No skills.\n");
      return true;
    case CommandId::kSkill:
      LoadSkill(argument);
      return true;
    case CommandId::kModel:
      ShowModel(argument);
      return true;
    case CommandId::kPermissions:
      ShowPermissions(argument);
      return true;
    case CommandId::kTasks:
      ShowTasks();
      break;
    case CommandId::kStatus:
      ShowStatus();
      return true;
    case CommandId::kCompact:
      Compact(argument);
      return true;
    case CommandId::kClear:
      Clear();
      return true;
    case CommandId::kHelp:
      display_.Output(HelpText());
      return true;
    case CommandId::kQuit:
      return false;
  }
  return true;
}

void Repl::Refresh() {
  EnsureDiscovered(-1);  // the first scan's report comes first
  // The folder may have been trusted (or untrusted) since the start, or
  // gained a .ikigai/: decide again, as at the start.
  host_.trust = session::DecideTrust(host_.trust.dir, host_.trust.trust_once,
                                     session::ProjectStore(session::ProjectStore::DefaultPath()));
  host_.directories.project =
      host_.trust.trusted ? discovery::DefaultDirectories().project : std::string();
  if (!host_.trust.trusted && !host_.trust.contents.empty()) {
    display_.Warning(session::SkippedMessage(host_.trust));
  }
  if (host_.skills) {
    host_.skills->SetCatalog(skills::DiscoverSkills(session::SkillDirectoriesFor(host_.trust)));
    for (const std::string& line : session::SkillProblemLines(*host_.skills->catalog()))
      display_.Debug("Debug: " + line);
    // The model is told the skills in the system prompt: from the next
    // request on, the new ones.
    if (agent_) agent_->SetSystemPrompt(session::SystemPromptFor(host_, Mode(), model_).text);
  }
  display_.Spin("discovering tools");
  std::vector<std::string> notices;
  auto registry = WithMcp(std::make_shared<const registry::Registry>(discovery::Discover(
                              host_.directories, session::DiscoveryOptionsFor(host_))),
                          notices);
  display_.StopSpinner();
  for (const std::string& line : notices) display_.Warning(line);
  registry_.Set(registry);
  display_.Output("Tool registry refreshed: " + std::to_string(registry->tools().size()) +
                  " tools loaded\n");
  std::ostringstream problems;
  session::PrintDiscoveryProblems(*registry, problems);
  if (!problems.str().empty()) display_.Debug(problems.str().substr(0, problems.str().size() - 1));
}

void Repl::ShowModel(const std::string& argument) {
  if (argument.empty()) {
    display_.Output("Model: " + model_ + " (" + provider_kind_ + ")\n");
    return;
  }
  model_ = argument;
  if (agent_) agent_->SetModel(model_);
  if (log_) log_->Append({{"type", "model"}, {"model", model_}});
  display_.Output("Model set to " + model_ + " (" + provider_kind_ + ").\n");
}

void Repl::ShowPermissions(const std::string& argument) {
  if (!argument.empty()) {
    const auto mode = permissions::ParseMode(argument);
    if (!mode) {
      display_.Error("Unknown mode '" + argument + "': use one of " +
                     std::string(permissions::kModeNames) + ".");
      return;
    }
    if (host_.sandbox) {
      if (const std::string refusal = session::ModeRefusal(*host_.sandbox, *mode);
          !refusal.empty()) {
        display_.Error(refusal);
        return;
      }
      if (const std::string notice = session::SandboxNotice(*host_.sandbox, *mode);
          !notice.empty() && session::SandboxNotice(*host_.sandbox, Mode()).empty()) {
        for (const auto& line : session::NoticeLines(notice)) display_.Warning(line);
      }
    }
    const bool narrower = *mode < permissions_->mode();
    permissions_->SetMode(*mode);
    // A background subagent keeps the mode it started with: never wider
    // than the session's, so a narrower mode stops those still running.
    if (const int stopped = narrower ? subagents_->StopAll() : 0; stopped > 0) {
      display_.Notice("Stopped " + std::to_string(stopped) +
                      " background subagent(s) started under the wider mode.");
    }
    // The model is told the mode in the system prompt: from the next
    // request on, the new one.
    if (agent_) agent_->SetSystemPrompt(session::SystemPromptFor(host_, *mode, model_).text);
  }
  const permissions::Mode mode = permissions_->mode();
  display_.Output(std::string(argument.empty() ? "Permission mode: " : "Permission mode set to ") +
                  std::string(permissions::ModeName(mode)) + " (" +
                  std::string(permissions::ModeDescription(mode)) + ").\n");
}

// One question per call, asked in turn before the calls run together:
// y once, a always (a rule kept for this project), n no (optionally with a
// reason for the model); Ctrl+C is no and stops the turn.
session::Answer Repl::Ask(const session::Question& question) {
  // Ctrl+C answers the question, as at the prompt, instead of cancelling
  // the turn behind it; a kStop answer then stops the turn.
  signals::SetTurn(nullptr);
  struct TurnBack {
    agent::Cancellation* turn;
    ~TurnBack() { signals::SetTurn(turn); }
  } turn_back{&cancellation_};
  display_.StopSpinner();
  display_.EndLine();
  // The whole call, not the one-line summary: what is approved is what runs.
  display_.Warning("Allow " + VisibleText(question.call.name, Layout::kOneLine) + "?");
  if (!question.hook_reason.empty()) {
    display_.Notice("  A PreToolUse hook asks: " +
                    VisibleText(question.hook_reason, Layout::kKeep));
  }
  if (question.preview.empty()) {
    std::string shown;
    const std::string full = session::DescribeCallInFull(question.call);
    for (std::size_t start = 0; start <= full.size();) {
      const std::size_t end = std::min(full.find('\n', start), full.size());
      shown += "  | " + full.substr(start, end - start) + "\n";
      start = end + 1;
    }
    display_.Output(shown);
  } else {
    display_.Diff(session::FirstLines(question.preview, kPreviewLines));
  }
  // No rule fits some calls (a command substitution, a path outside the
  // workspace): then there is no "always", only y and n.
  const bool always = !question.always_rule.empty();
  // A long diff is shown in part; v shows all of it before the answer.
  const bool more = static_cast<std::size_t>(std::count(
                        question.preview.begin(), question.preview.end(), '\n')) > kPreviewLines;
  display_.Notice(
      "  y: yes, once   " +
      (always ? "a: always (adds " + question.always_rule + " for this project)   " : "") +
      "n: no (optionally: n, then a reason)" + (more ? "   v: view the whole diff" : ""));
  for (;;) {
    ReadResult read = reader_.Read(always ? "allow? [y/a/n] " : "allow? [y/n] ");
    if (read.status != ReadResult::Status::kLine) {
      if (display_.style().animate) display_.Output("\n");
      return {session::Answer::Kind::kStop, ""};
    }
    std::string text = read.text;
    const std::size_t start = text.find_first_not_of(" \t");
    text = start == std::string::npos ? "" : text.substr(start);
    const char first = text.empty() ? '\0' : static_cast<char>(std::tolower(text[0]));
    const std::string rest =
        text.size() > 1 && !std::isalpha(static_cast<unsigned char>(text[1])) ? text.substr(1) : "";
    const std::size_t words = rest.find_first_not_of(" \t,:;");
    if (first == 'y' && (text.size() == 1 || text == "yes"))
      return {session::Answer::Kind::kYes, ""};
    if (always && first == 'a' && (text.size() == 1 || text == "always")) {
      return {session::Answer::Kind::kAlways, ""};
    }
    if (first == 'n' && (text.size() == 1 || text == "no" || !rest.empty())) {
      return {session::Answer::Kind::kNo, words == std::string::npos ? "" : rest.substr(words)};
    }
    if (more && first == 'v' && (text.size() == 1 || text == "view")) {
      display_.Diff(question.preview);
      continue;
    }
    display_.Notice(always ? "  Answer y, a or n (n followed by a reason tells the model why)."
                           : "  Answer y or n (n followed by a reason tells the model why).");
  }
}

void Repl::Clear() {
  agent_.reset();
  plan_.Forget();  // a new conversation starts without the old plan
  resumed_.clear();
  const bool had_log = log_ != nullptr;
  log_.reset();
  session_source_ = "clear";
  display_.Output(had_log ? "New conversation (the next message starts a new session log).\n"
                          : "New conversation.\n");
}

agent::Agent& Repl::EnsureAgent() {
  if (!agent_) {
    if (!log_) {
      auto created = session::CreateSessionLog(provider_kind_, model_);
      if (created) {
        log_ = std::move(*created);
      } else {
        display_.Warning("Warning: the session will not be saved: " + created.error());
      }
    }
    const agent::ComposedPrompt system_prompt = session::SystemPromptFor(host_, Mode(), model_);
    if (!system_prompt.problem.empty()) display_.Warning("Warning: " + system_prompt.problem);
    agent_ = std::make_unique<agent::Agent>(
        *provider_, registry_, executor_,
        session::AgentOptionsFor(host_.config.agent, model_, system_prompt.text), *permissions_,
        log_.get());
    agent_->SetMessages(std::move(resumed_));
    resumed_.clear();
    if (hooks_) {
      hooks_->SetSession(log_ ? log_->id() : "", log_ ? log_->path() : "");
      agent_->SetHooks(hooks_.get());
      hooks_->SessionStart(session_source_, cancellation_.fd());
    }
  }
  return *agent_;
}

bool Repl::BeginTurn() {
  cancellation_.Reset();
  signals::SetTurn(&cancellation_);
  if (!EnsureDiscovered(cancellation_.fd())) {
    display_.Notice("Interrupted.");
    return false;
  }
  // A server said its tools changed: the model gets the new list.
  if (host_.mcp && host_.mcp->TakeToolsChanged())
    registry_.Set(session::WithCurrentMcpTools(*registry_.Get(), *host_.mcp));
  return true;
}

void Repl::Compact(const std::string& focus) {
  if (!provider_) {
    display_.Error("Cannot compact: " + missing_key_);
    return;
  }
  struct TurnEnd {
    ~TurnEnd() { signals::SetTurn(nullptr); }
  } turn_end;
  if (!BeginTurn()) return;
  agent::Agent& agent = EnsureAgent();
  if (agent.messages().empty()) {
    display_.Output("Nothing to compact yet.\n");
    return;
  }
  std::size_t running = 0;
  display_.Spin("compacting");
  auto compacted = agent.Compact(focus, Observer(running), cancellation_);
  display_.EndLine();
  if (!compacted) {
    if (compacted.error().kind == providers::ErrorKind::kCancelled) {
      display_.Notice("Interrupted; the conversation is unchanged.");
    } else {
      display_.Error("ikigai: cannot compact: " + compacted.error().message);
    }
    return;
  }
  usage_ += compacted->usage;
}

void Repl::ShowStatus() {
  std::string text = "Model: " + model_ + " (" + provider_kind_ + ")\n" +
                     session::PermissionsSummary(Mode(), host_.sandbox.get()) + "\n";
  const agent::AgentOptions options = session::AgentOptionsFor(host_.config.agent, model_, "");
  const long context = agent_ ? agent_->ContextTokens() : agent::EstimateTokens(resumed_);
  text += session::ContextStatus(context, options, usage_);
  text += session::SubagentStatus(subagents_->Summary());
  if (log_) text += "Session: " + log_->id() + " (" + log_->path() + ")\n";
  display_.Output(text);
}

void Repl::ShowTasks() {
  display_.Output(session::TasksListing(tasks::ListTasks(tasks::TasksDirectory()), tasks::NowMs()));
}

// As if the model had called the skill tool: the same result, given to the
// model with the next message (a message of its own would break the
// alternation of user and assistant turns some providers require).
void Repl::LoadSkill(const std::string& name) {
  if (name.empty()) {
    display_.Error("Usage: /skill NAME (/skills lists them)");
    return;
  }
  if (!host_.skills) {
    display_.Error("No skills.");
    return;
  }
  EnsureDiscovered(-1);  // the skill's tools join the discovered ones
  const nlohmann::ordered_json result = host_.skills->Load(name);
  if (result.contains("error")) {
    display_.Error(result.value("error", ""));
    return;
  }
  loaded_skills_ += "[The user loaded the skill " + name +
                    " with /skill; the skill tool's result follows.]\n" +
                    result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n\n";
  std::string tools;
  for (const auto& tool : result.value("tools", nlohmann::ordered_json::array()))
    tools += (tools.empty() ? "" : ", ") + tool.get<std::string>();
  display_.Output("Loaded skill " + name + " (" + session::DisplayPath(result.value("path", "")) +
                  "): its instructions go to the model with your next message" +
                  (tools.empty() ? "" : "; its tools are offered: " + tools) + ".\n");
  for (const auto& problem : result.value("tool_problems", nlohmann::ordered_json::array())) {
    display_.Warning("Tool " + problem.value("tool", "") + " of skill " + name +
                     " left out: " + problem.value("reason", ""));
  }
}

agent::AgentObserver Repl::Observer(std::size_t& running) {
  agent::AgentObserver observer;
  observer.on_text = [this](std::string_view text) { display_.Text(text); };
  observer.on_tool_start = [this, &running](const providers::ToolCall& call) {
    display_.ToolStart(call);
    ++running;
    display_.Spin(running == 1 ? call.name : std::to_string(running) + " tools");
  };
  observer.on_tool_end = [this, &running](const providers::ToolCall& call,
                                          const protocol::WrappedJson& wrapped,
                                          std::chrono::microseconds elapsed) {
    display_.ToolEnd(call, wrapped, elapsed);
    if (auto changed = plan_.Changed()) display_.Checklist(*changed);
    if (running > 0 && --running == 0) display_.Spin("thinking");
  };
  observer.on_retry = [this](std::string_view reason, std::chrono::milliseconds wait) {
    display_.Warning(std::string(reason) + "; trying again in " +
                     FormatElapsed(std::chrono::duration_cast<std::chrono::milliseconds>(wait)));
    display_.Spin("waiting");
  };
  observer.on_task_notes = [this](const std::vector<std::string>& lines) {
    display_.EndLine();
    for (const std::string& line : lines) display_.Notice(line);
  };
  observer.on_compaction = [this](const agent::Compaction& compaction) {
    display_.EndLine();
    display_.Notice(session::CompactionLine(compaction));
    display_.Spin("thinking");
  };
  return observer;
}

void Repl::Send(const std::string& message) {
  if (!provider_) {
    display_.Error("Cannot send: " + missing_key_);
    return;
  }
  struct TurnEnd {
    ~TurnEnd() { signals::SetTurn(nullptr); }
  } turn_end;
  if (!BeginTurn()) return;
  agent::Agent& agent = EnsureAgent();
  std::size_t running = 0;
  display_.Spin("thinking");
  const std::string text = std::exchange(loaded_skills_, std::string()) + message;
  auto outcome = agent.Prompt(text, Observer(running), cancellation_);
  display_.EndLine();
  if (outcome) usage_ += outcome->usage;
  if (!outcome) {
    display_.Error("ikigai: " + outcome.error().message);
    return;
  }
  if (outcome->cancelled) {
    display_.Notice("Interrupted.");
  } else if (!outcome->refused.empty()) {
    display_.Warning("A UserPromptSubmit hook refused the prompt (it was not sent): " +
                     outcome->refused);
  } else if (outcome->round_limit_reached) {
    display_.Warning("Stopped after " + std::to_string(host_.config.agent.max_rounds) +
                     " rounds (max_rounds); the model was still calling tools. Send a message to "
                     "let it go on.");
  }
}

void Repl::Farewell() {
  if (log_) display_.Notice("Session saved: ikigai --resume " + log_->id());
}

int RunRepl(session::HostContext host, const ReplOptions& options) {
  // Wide characters for libedit: the user's locale, else UTF-8 (the
  // user's own decides whether the spinner may draw braille).
  std::setlocale(LC_CTYPE, "");
  const Style style = Style::Detect(STDOUT_FILENO);
  if (MB_CUR_MAX == 1) std::setlocale(LC_CTYPE, "C.UTF-8");

  const int wake_fd = signals::Install();
  const bool terminal = ::isatty(STDIN_FILENO) == 1;
  int status;
  {
    auto reader =
        terminal ? MakeTerminalReader(wake_fd, std::make_unique<HistoryFile>(DefaultHistoryPath()),
                                      style.color)
                 : MakePlainReader(STDIN_FILENO, wake_fd);
    Display display(std::cout, style);
    ReplOptions with_terminal = options;
    with_terminal.asks_questions = terminal;
    Repl repl(std::move(host), with_terminal, *reader, display);
    status = repl.Run();
  }
  signals::Uninstall();
  return status;
}

}  // namespace ikigai::repl
