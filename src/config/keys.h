// The configuration keys, declared once.
//
// Each key has a dotted path ("tools.<tool>.timeout_ms": a segment in angle
// brackets stands for any name), a value kind with its bounds, an optional
// environment variable, its default and description (docs/configuration.md
// shows the same; a test keeps them in step), and how it is applied. To add
// a key: add a row to the table in keys.cc and a line to the documentation;
// loading, layering and error messages need no change.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace ikigai::config {

// A configuration being built, layer by layer. Settings that depend on
// others (a per-tool limit falls back on the global limit, which a later
// layer may still change) are kept apart until every layer is read.
struct Draft {
  struct ToolOverrides {
    std::optional<std::chrono::milliseconds> timeout;
    std::optional<std::size_t> output_limit;
  };
  Config config;
  std::map<std::string, ToolOverrides, std::less<>> tools;
  std::string source;  // the file being read (hooks remember where they came from)
};

// kStringList: a JSON array of strings; each layer adds to what the earlier
// ones gave (a project cannot drop the user's deny rules). kHookList: a
// list of hooks (hooks/hook_config.h), adding up the same way.
enum class ValueKind { kPositiveInteger, kString, kBoolean, kStringList, kHookList };

struct Key {
  std::string_view path;  // "tool_timeout_ms", "tools.<tool>.timeout_ms"
  ValueKind kind;
  std::int64_t max = 0;            // kPositiveInteger: the largest value accepted
  std::string_view choices = {};   // kString: the values accepted, space-separated (empty: any)
  std::string_view env = {};       // an environment variable that sets it (plain paths only)
  std::string_view default_value;  // as documented
  std::string_view description;
  // `names` holds what the <...> segments matched, in order. The value has
  // been checked against `kind` and `max`.
  void (*apply)(Draft& draft, const std::vector<std::string>& names, const nlohmann::json& value);
};

std::span<const Key> AllKeys();

// Checks a name standing for a <placeholder> segment; empty if it is fine,
// else why not ("not a tool name (tool names use underscores: file_read)").
std::string CheckPlaceholderName(std::string_view placeholder, std::string_view name);

// Resolves what was kept apart (per-tool limits over the final defaults).
Config Finish(Draft draft);

}  // namespace ikigai::config
