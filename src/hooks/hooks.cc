#include "hooks/hooks.h"

#include "subagents/subagent.h"

namespace ikigai::hooks {
namespace {

// Ordered: the fields in the order Claude Code's hooks read them.
using Json = nlohmann::ordered_json;

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

Hooks::Hooks(HooksConfig config, RunSettings settings, Reporter report)
    : config_(std::move(config)), settings_(std::move(settings)), report_(std::move(report)) {}

bool Hooks::HasFor(Event event, std::string_view tool) const {
  for (const Hook& hook : config_.For(event)) {
    if (Matches(hook.matcher, tool)) return true;
  }
  return false;
}

void Hooks::SetSession(std::string id, std::string transcript_path) {
  session_id_ = std::move(id);
  transcript_path_ = std::move(transcript_path);
}

Json Hooks::Input(Event event) const {
  Json input = {{"session_id", session_id_},
                {"transcript_path", transcript_path_},
                {"cwd", settings_.cwd},
                {"permission_mode", mode_name_ ? mode_name_() : std::string()},
                {"hook_event_name", EventName(event)}};
  // A subagent is an `ikigai -p` of its own (subagents/subagent.h).
  if (subagents::IsSubagent()) input["subagent"] = true;
  return input;
}

std::vector<HookRun> Hooks::Run(const std::vector<HookJob>& jobs, int cancel_fd) {
  return RunHooks(jobs, settings_, cancel_fd);
}

void Hooks::Report(const std::vector<std::string>& notes) const {
  if (!report_) return;
  for (const std::string& note : notes) report_(note);
}

ToolDecision Hooks::PreToolUse(const std::string& tool, const nlohmann::json& arguments,
                               const std::string& call_id, int cancel_fd) {
  if (!HasFor(Event::kPreToolUse, tool)) return {};
  Json input = Input(Event::kPreToolUse);
  input["tool_name"] = tool;
  input["tool_input"] = Json(arguments);
  input["tool_use_id"] = call_id;
  const std::string text = Dump(input);
  std::vector<HookJob> jobs;
  for (const Hook& hook : config_.For(Event::kPreToolUse)) {
    if (Matches(hook.matcher, tool)) jobs.push_back({&hook, text});
  }
  ToolDecision decision = JudgePreToolUse(Run(jobs, cancel_fd));
  Report(decision.notes);
  return decision;
}

std::vector<std::string> Hooks::PostToolUse(const std::vector<ToolUse>& uses, int cancel_fd) {
  std::vector<std::string> feedback(uses.size());
  std::vector<HookJob> jobs;
  std::vector<std::size_t> job_use;  // jobs[k] is for uses[job_use[k]]
  for (std::size_t i = 0; i < uses.size(); ++i) {
    if (!HasFor(Event::kPostToolUse, uses[i].tool)) continue;
    Json input = Input(Event::kPostToolUse);
    input["tool_name"] = uses[i].tool;
    input["tool_input"] = Json(uses[i].input);
    input["tool_use_id"] = uses[i].call_id;
    input["tool_response"] = uses[i].response;
    const std::string text = Dump(input);
    for (const Hook& hook : config_.For(Event::kPostToolUse)) {
      if (!Matches(hook.matcher, uses[i].tool)) continue;
      jobs.push_back({&hook, text});
      job_use.push_back(i);
    }
  }
  if (jobs.empty()) return feedback;
  std::vector<HookRun> runs = Run(jobs, cancel_fd);
  for (std::size_t i = 0; i < uses.size(); ++i) {
    std::vector<HookRun> mine;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      if (job_use[k] == i) mine.push_back(std::move(runs[k]));
    }
    if (mine.empty()) continue;
    Feedback judged = JudgeOther(Event::kPostToolUse, mine);
    Report(judged.notes);
    feedback[i] = std::move(judged.text);
  }
  return feedback;
}

PromptDecision Hooks::UserPromptSubmit(const std::string& prompt, int cancel_fd) {
  PromptDecision decision;
  if (Has(Event::kUserPromptSubmit)) {
    Json input = Input(Event::kUserPromptSubmit);
    input["prompt"] = prompt;
    const std::string text = Dump(input);
    std::vector<HookJob> jobs;
    for (const Hook& hook : config_.For(Event::kUserPromptSubmit)) jobs.push_back({&hook, text});
    decision = JudgeUserPromptSubmit(Run(jobs, cancel_fd));
    Report(decision.notes);
  }
  if (decision.refused) return decision;  // the SessionStart context waits for a prompt sent
  if (!pending_context_.empty()) {
    decision.context = pending_context_ + (decision.context.empty() ? "" : "\n") + decision.context;
    pending_context_.clear();
  }
  return decision;
}

void Hooks::Stop(const std::string& last_message, int cancel_fd) {
  if (!Has(Event::kStop)) return;
  Json input = Input(Event::kStop);
  input["stop_hook_active"] = false;
  input["last_assistant_message"] = last_message;
  const std::string text = Dump(input);
  std::vector<HookJob> jobs;
  for (const Hook& hook : config_.For(Event::kStop)) jobs.push_back({&hook, text});
  Report(JudgeOther(Event::kStop, Run(jobs, cancel_fd)).notes);
}

void Hooks::SessionStart(const std::string& source, int cancel_fd) {
  if (!Has(Event::kSessionStart)) return;
  Json input = Input(Event::kSessionStart);
  input["source"] = source;
  const std::string text = Dump(input);
  std::vector<HookJob> jobs;
  for (const Hook& hook : config_.For(Event::kSessionStart)) jobs.push_back({&hook, text});
  Feedback judged = JudgeOther(Event::kSessionStart, Run(jobs, cancel_fd));
  Report(judged.notes);
  pending_context_ = std::move(judged.text);
}

}  // namespace ikigai::hooks
