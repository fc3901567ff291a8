// Hooks as configured (DECISIONS §11): `hooks.EVENT` is a list of
// {matcher, command, timeout_ms}, for the five events below.
//
//   {"hooks": {"PreToolUse": [{"matcher": "bash|file_write", "command": "./check.sh",
//                              "timeout_ms": 5000}]}}
//
// `matcher` names the tools a hook is for (tool events only): a tool name,
// `*`, or names joined by `|`; each name may use `*` as a wildcard
// (`mcp__*`). Absent or empty: every tool. Lists add up across the layers,
// like the permission rules: a project adds hooks, it cannot drop the
// user's. Checked when the configuration loads, so a mistake stops ikigai
// with the file and key, never later at a call.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ikigai::hooks {

enum class Event { kPreToolUse, kPostToolUse, kUserPromptSubmit, kStop, kSessionStart };
inline constexpr std::size_t kEventCount = 5;
inline constexpr std::string_view kEventNames =
    "PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart";

std::string_view EventName(Event event);
std::optional<Event> ParseEvent(std::string_view name);
// Whether the event is about one tool call (its hooks have a matcher).
bool IsToolEvent(Event event);

inline constexpr std::chrono::milliseconds kDefaultTimeout{60000};
inline constexpr std::int64_t kMaxTimeoutMs = 10 * 60 * 1000;  // ten minutes

struct Hook {
  std::string matcher;  // empty: every tool
  std::string command;  // run with /bin/sh -c
  std::chrono::milliseconds timeout = kDefaultTimeout;
  std::string source;  // the configuration file that declared it
};

struct HooksConfig {
  std::array<std::vector<Hook>, kEventCount> by_event;
  const std::vector<Hook>& For(Event event) const {
    return by_event[static_cast<std::size_t>(event)];
  }
  std::size_t size() const;
};

// Why `value` is not a valid list of hooks ("[1].timeout_ms: must be a
// positive integer, got \"5\""), or empty if it is.
std::string CheckHookList(const nlohmann::json& value);
// A list CheckHookList accepted, as hooks declared in `source`.
std::vector<Hook> ParseHookList(const nlohmann::json& value, const std::string& source);

// Why `matcher` is not a tool name, `*`, or names joined by `|`; empty if it is.
std::string CheckMatcher(std::string_view matcher);
// Whether a hook with this matcher is for `tool`.
bool Matches(std::string_view matcher, std::string_view tool);

}  // namespace ikigai::hooks
