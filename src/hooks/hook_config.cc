#include "hooks/hook_config.h"

#include <cstdint>

namespace ikigai::hooks {
namespace {

constexpr std::array<std::string_view, kEventCount> kNames = {
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart"};

bool IsNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '*';
}

// `pattern` with `*` standing for any run of characters.
bool GlobMatches(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

std::string_view EventName(Event event) { return kNames[static_cast<std::size_t>(event)]; }

std::optional<Event> ParseEvent(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<Event>(i);
  }
  return std::nullopt;
}

bool IsToolEvent(Event event) {
  return event == Event::kPreToolUse || event == Event::kPostToolUse;
}

std::size_t HooksConfig::size() const {
  std::size_t n = 0;
  for (const auto& hooks : by_event) n += hooks.size();
  return n;
}

std::string CheckMatcher(std::string_view matcher) {
  if (matcher.empty()) return {};
  for (std::string_view rest = matcher;;) {
    const std::size_t bar = rest.find('|');
    const std::string_view name = rest.substr(0, bar);
    bool valid = !name.empty();
    for (char c : name) valid = valid && IsNameCharacter(c);
    if (!valid) {
      return "must be a tool name, `*`, or tool names joined by `|` (such as "
             "\"bash|file_write\"), got \"" +
             std::string(matcher) + "\"";
    }
    if (bar == std::string_view::npos) return {};
    rest = rest.substr(bar + 1);
  }
}

bool Matches(std::string_view matcher, std::string_view tool) {
  if (matcher.empty()) return true;
  for (std::string_view rest = matcher;;) {
    const std::size_t bar = rest.find('|');
    if (GlobMatches(rest.substr(0, bar), tool)) return true;
    if (bar == std::string_view::npos) return false;
    rest = rest.substr(bar + 1);
  }
}

std::string CheckHookList(const nlohmann::json& value) {
  const std::string shape =
      "must be a list of hooks, e.g. [{\"matcher\": \"bash\", \"command\": \"./check.sh\"}], got ";
  if (!value.is_array()) return shape + value.dump();
  for (std::size_t i = 0; i < value.size(); ++i) {
    const nlohmann::json& hook = value[i];
    const std::string where = "[" + std::to_string(i) + "]";
    if (!hook.is_object()) return where + ": " + shape + hook.dump();
    for (const auto& [field, field_value] : hook.items()) {
      const std::string at = where + "." + field + ": ";
      if (field == "command") {
        if (!field_value.is_string() || field_value.get<std::string>().empty()) {
          return at + "must be a command line (a non-empty string), got " + field_value.dump();
        }
      } else if (field == "matcher") {
        if (!field_value.is_string()) return at + "must be a string, got " + field_value.dump();
        if (std::string why = CheckMatcher(field_value.get<std::string>()); !why.empty()) {
          return at + why;
        }
      } else if (field == "timeout_ms") {
        const bool positive =
            field_value.is_number_unsigned()
                ? field_value.get<std::uint64_t>() > 0
                : field_value.is_number_integer() && field_value.get<std::int64_t>() > 0;
        if (!positive) return at + "must be a positive integer, got " + field_value.dump();
        if (field_value.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxTimeoutMs)) {
          return at + "must be at most " + std::to_string(kMaxTimeoutMs) + ", got " +
                 field_value.dump();
        }
      } else {
        return where + ": unknown field \"" + field + "\" (known: command, matcher, timeout_ms)";
      }
    }
    if (!hook.contains("command")) return where + ": command: missing (the command line to run)";
  }
  return {};
}

std::vector<Hook> ParseHookList(const nlohmann::json& value, const std::string& source) {
  std::vector<Hook> hooks;
  for (const nlohmann::json& entry : value) {
    Hook hook;
    hook.command = entry.at("command").get<std::string>();
    hook.matcher = entry.value("matcher", "");
    if (hook.matcher == "*") hook.matcher.clear();
    if (auto timeout = entry.find("timeout_ms"); timeout != entry.end()) {
      hook.timeout = std::chrono::milliseconds(timeout->get<std::int64_t>());
    }
    hook.source = source;
    hooks.push_back(std::move(hook));
  }
  return hooks;
}

}  // namespace ikigai::hooks
