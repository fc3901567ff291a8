// What the hooks of one event said, read from how they ended (DECISIONS §11).
//
// Exit 0 is an answer: stdout is either plain text (context, for the
// events that take it) or, when it starts with `{`, a JSON object in
// Claude Code's shape: {"hookSpecificOutput": {"permissionDecision": "allow"
// | "deny" | "ask", "permissionDecisionReason", "additionalContext"}}, or
// the older {"decision": "block" | "approve", "reason"}. Exit 2 blocks, with
// stderr as the reason. Any other exit code is told to the user and
// otherwise ignored.
//
// A hook that crashes (a signal, too much output, could not be run), times
// out, or answers JSON that cannot be read has failed: for PreToolUse and
// UserPromptSubmit, whose answer guards what happens next, that blocks
// (fails closed) and says so; for the others it is told and ignored.
//
// Several hooks of one event ran at once; their answers combine: deny (or
// block) beats ask, which beats allow.
#pragma once

#include <string>
#include <vector>

#include "hooks/runner.h"

namespace ikigai::hooks {

struct ToolDecision {
  enum class Kind { kNone, kAllow, kAsk, kDeny } kind = Kind::kNone;
  std::string reason;              // kDeny: for the model; kAsk: for the user's question
  std::vector<std::string> notes;  // lines for the user
};
ToolDecision JudgePreToolUse(const std::vector<HookRun>& runs);

struct PromptDecision {
  bool refused = false;
  std::string reason;   // refused: why, for the user
  std::string context;  // added to the prompt
  std::vector<std::string> notes;
};
PromptDecision JudgeUserPromptSubmit(const std::vector<HookRun>& runs);

// PostToolUse: `text` goes to the model with the call's result (exit 2's
// stderr, a "block" reason, additionalContext). SessionStart: `text` is
// context for the next prompt (stdout, or additionalContext). Stop: only
// notes.
struct Feedback {
  std::string text;
  std::vector<std::string> notes;
};
Feedback JudgeOther(Event event, const std::vector<HookRun>& runs);

}  // namespace ikigai::hooks
