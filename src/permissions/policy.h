// Which tool calls run, which ask and which are refused (DECISIONS §6).
//
//   mode          read-only calls   file edits in the workspace   everything else
//   read-only     run               refused                       refused
//   ask           run               ask                           ask
//   auto-edit     run               run                           ask
//   auto          run               run                           run
//   unrestricted  run               run                           run (and no sandbox)
//
// A deny rule that matches wins in every mode, unrestricted included. An
// allow rule turns "ask" into "run" (never in read-only mode). A call is
// read-only when its tool says readOnlyHint, or it is a bash command that
// only reads (read_only_command.h). A file edit is a call of file_write or
// file_edit whose path resolves inside the workspace.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "permissions/rules.h"

namespace ikigai::permissions {

enum class Mode { kReadOnly, kAsk, kAutoEdit, kAuto, kUnrestricted };

std::optional<Mode> ParseMode(std::string_view name);
std::string_view ModeName(Mode mode);
std::string_view ModeDescription(Mode mode);  // one line, for --help and /permissions
inline constexpr std::string_view kModeNames = "read-only, ask, auto-edit, auto, unrestricted";

struct CallFacts {
  std::string tool;
  nlohmann::json arguments;
  bool read_only_hint = false;
  bool open_world_hint = false;
};

// Whether the call only reads (the sandbox then gives it the read-only profile).
bool IsReadOnlyCall(const CallFacts& call);

enum class Verdict { kAllow, kAsk, kDeny };

struct Decision {
  Verdict verdict = Verdict::kAsk;
  std::string reason;        // kAsk, kDeny: why, naming the mode or the rule
  std::string how_to_allow;  // kAsk, kDeny: the flag or rule that would allow it
};

Decision Decide(const CallFacts& call, Mode mode, const Rules& rules, const Place& place);

// The rule an "always" answer adds: bash(PROGRAM:*) or
// bash(PROGRAM SUBCOMMAND:*) for one simple command; the exact command for
// a compound one, a redirection, a wrapper, shell or interpreter (timeout,
// sh -c, env, python3 -c, ...) whose prefix would allow any command;
// TOOL(PATH) for a path inside the workspace (glob characters escaped),
// else the tool's name. Empty where no rule fits: a bash line with a
// substitution (allow rules never cover one) or a path outside the
// workspace (path rules are relative to it); then there is no "always".
std::string RuleToAllow(const CallFacts& call, const Place& place);

}  // namespace ikigai::permissions
