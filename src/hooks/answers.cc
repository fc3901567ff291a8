#include "hooks/answers.h"

#include "base/utf8.h"
#include "base/visible_text.h"

namespace ikigai::hooks {
namespace {

using Json = nlohmann::json;

std::string Trimmed(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(" \t\r\n");
  return utf8::Repair(text.substr(start, end - start + 1));
}

// "hook PreToolUse `./check.sh`"
std::string Name(Event event, const HookRun& run) {
  return "hook " + std::string(EventName(event)) + " " + HookLabel(*run.hook);
}

// "hook Stop `x` exited with 1: its stderr's first line"
std::string ExitNote(Event event, const HookRun& run) {
  std::string note = Name(event, run) + " exited with " + std::to_string(run.exit_code);
  if (const std::string err = Trimmed(run.err); !err.empty()) note += ": " + VisibleLine(err, 200);
  return note + " (ignored)";
}

// What an exit 0 printed: nothing to read (plain text), a JSON object, or
// text that began like JSON and is not (`broken` says why).
struct Answer {
  bool json = false;
  Json object;
  std::string broken;
};

Answer ReadAnswer(const std::string& out) {
  Answer answer;
  const std::string text = Trimmed(out);
  if (!text.starts_with('{')) return answer;
  Json parsed = Json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    answer.broken = "printed output that starts like JSON but is not a JSON object";
    return answer;
  }
  answer.json = true;
  answer.object = std::move(parsed);
  return answer;
}

std::string StringField(const Json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const Json& Specific(const Json& object) {
  static const Json kEmpty = Json::object();
  auto it = object.find("hookSpecificOutput");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

void Join(std::string& into, const std::string& text) {
  if (text.empty()) return;
  into += (into.empty() ? "" : "\n") + text;
}

}  // namespace

ToolDecision JudgePreToolUse(const std::vector<HookRun>& runs) {
  ToolDecision decision;
  using Kind = ToolDecision::Kind;
  std::string deny_reasons, ask_reasons;
  bool deny = false, ask = false, allow = false;
  for (const HookRun& run : runs) {
    const std::string name = Name(Event::kPreToolUse, run);
    if (run.end != HookRun::End::kExited) {
      deny = true;
      const std::string why =
          name + " " + run.problem + "; the call is blocked (a PreToolUse hook that fails blocks).";
      Join(deny_reasons, why);
      if (run.end != HookRun::End::kCancelled) decision.notes.push_back(why);
      continue;
    }
    if (run.exit_code == 2) {
      deny = true;
      const std::string err = Trimmed(run.err);
      Join(deny_reasons, err.empty() ? name + " blocked this call." : err);
      continue;
    }
    if (run.exit_code != 0) {
      decision.notes.push_back(ExitNote(Event::kPreToolUse, run));
      continue;
    }
    const Answer answer = ReadAnswer(run.out);
    if (!answer.broken.empty()) {
      deny = true;
      const std::string why = name + " " + answer.broken + "; the call is blocked.";
      Join(deny_reasons, why);
      decision.notes.push_back(why);
      continue;
    }
    if (!answer.json) continue;
    const Json& specific = Specific(answer.object);
    std::string verdict = StringField(specific, "permissionDecision");
    std::string reason = StringField(specific, "permissionDecisionReason");
    if (verdict.empty()) {  // the older shape
      const std::string old = StringField(answer.object, "decision");
      if (old == "block") verdict = "deny";
      if (old == "approve") verdict = "allow";
      reason = StringField(answer.object, "reason");
    }
    if (verdict == "deny") {
      deny = true;
      Join(deny_reasons, reason.empty() ? name + " denied this call." : reason);
    } else if (verdict == "ask") {
      ask = true;
      Join(ask_reasons, reason.empty() ? name + " asks for your approval." : reason);
    } else if (verdict == "allow") {
      allow = true;
    } else if (!verdict.empty()) {
      deny = true;
      const std::string why = name + " answered permissionDecision \"" + VisibleLine(verdict, 40) +
                              "\" (not allow, deny or ask); the call is blocked.";
      Join(deny_reasons, why);
      decision.notes.push_back(why);
    }
  }
  if (deny) {
    decision.kind = Kind::kDeny;
    decision.reason = std::move(deny_reasons);
  } else if (ask) {
    decision.kind = Kind::kAsk;
    decision.reason = std::move(ask_reasons);
  } else if (allow) {
    decision.kind = Kind::kAllow;
  }
  return decision;
}

PromptDecision JudgeUserPromptSubmit(const std::vector<HookRun>& runs) {
  PromptDecision decision;
  for (const HookRun& run : runs) {
    const std::string name = Name(Event::kUserPromptSubmit, run);
    if (run.end != HookRun::End::kExited) {
      decision.refused = true;
      Join(decision.reason, name + " " + run.problem +
                                "; the prompt was not sent (a UserPromptSubmit hook that fails "
                                "blocks).");
      continue;
    }
    if (run.exit_code == 2) {
      decision.refused = true;
      const std::string err = Trimmed(run.err);
      Join(decision.reason, err.empty() ? name + " refused the prompt." : err);
      continue;
    }
    if (run.exit_code != 0) {
      decision.notes.push_back(ExitNote(Event::kUserPromptSubmit, run));
      continue;
    }
    const Answer answer = ReadAnswer(run.out);
    if (!answer.broken.empty()) {
      decision.refused = true;
      Join(decision.reason, name + " " + answer.broken + "; the prompt was not sent.");
      continue;
    }
    if (!answer.json) {
      Join(decision.context, Trimmed(run.out));
      continue;
    }
    if (StringField(answer.object, "decision") == "block") {
      decision.refused = true;
      const std::string reason = StringField(answer.object, "reason");
      Join(decision.reason, reason.empty() ? name + " refused the prompt." : reason);
      continue;
    }
    Join(decision.context, Trimmed(StringField(Specific(answer.object), "additionalContext")));
  }
  return decision;
}

Feedback JudgeOther(Event event, const std::vector<HookRun>& runs) {
  Feedback feedback;
  for (const HookRun& run : runs) {
    const std::string name = Name(event, run);
    if (run.end == HookRun::End::kCancelled) continue;
    if (run.end != HookRun::End::kExited) {
      feedback.notes.push_back(name + " " + run.problem + " (ignored)");
      continue;
    }
    if (event == Event::kPostToolUse && run.exit_code == 2) {
      Join(feedback.text, Trimmed(run.err));
      continue;
    }
    if (run.exit_code != 0) {
      feedback.notes.push_back(ExitNote(event, run));
      continue;
    }
    const Answer answer = ReadAnswer(run.out);
    if (!answer.broken.empty()) {
      feedback.notes.push_back(name + " " + answer.broken + " (ignored)");
      continue;
    }
    if (event == Event::kStop) continue;
    if (!answer.json) {
      if (event == Event::kSessionStart) Join(feedback.text, Trimmed(run.out));
      continue;
    }
    if (event == Event::kPostToolUse && StringField(answer.object, "decision") == "block") {
      Join(feedback.text, StringField(answer.object, "reason"));
    }
    Join(feedback.text, Trimmed(StringField(Specific(answer.object), "additionalContext")));
  }
  return feedback;
}

}  // namespace ikigai::hooks
