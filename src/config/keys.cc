#include "config/keys.h"

#include <algorithm>

namespace ikigai::config {
namespace {

using Json = nlohmann::json;
using Names = std::vector<std::string>;

constexpr std::int64_t kMaxTimeoutMs = 24 * 60 * 60 * 1000;  // a day
constexpr std::int64_t kMaxOutputLimit = 16 * 1024 * 1024;   // 16 MB
constexpr std::int64_t kMaxSchemaTimeoutMs = 60 * 1000;

std::chrono::milliseconds Ms(const Json& value) {
  return std::chrono::milliseconds(value.get<std::int64_t>());
}

const Key kKeys[] = {
    {.path = "tool_timeout_ms",
     .kind = ValueKind::kPositiveInteger,
     .max = kMaxTimeoutMs,
     .env = "IKIGAI_TOOL_TIMEOUT_MS",
     .default_value = "30000",
     .description = "How long a tool call may run before its process group is killed "
                    "(TOOL_TIMEOUT).",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { d.config.tools.defaults.timeout = Ms(v); }},
    {.path = "tool_output_limit_bytes",
     .kind = ValueKind::kPositiveInteger,
     .max = kMaxOutputLimit,
     .env = "",
     .default_value = "65536",
     .description = "The most a tool call may print on stdout; past it the tool is stopped "
                    "(OUTPUT_TOO_LARGE).",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { d.config.tools.defaults.output_limit = v.get<std::size_t>(); }},
    {.path = "schema_timeout_ms",
     .kind = ValueKind::kPositiveInteger,
     .max = kMaxSchemaTimeoutMs,
     .env = "",
     .default_value = "1000",
     .description = "How long a tool may take to answer --schema during discovery.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.schema_timeout = Ms(v); }},
    {.path = "tools.<tool>.timeout_ms",
     .kind = ValueKind::kPositiveInteger,
     .max = kMaxTimeoutMs,
     .env = "",
     .default_value = "`tool_timeout_ms`",
     .description = "tool_timeout_ms for one tool.",
     .apply = [](Draft& d, const Names& names,
                 const Json& v) { d.tools[names.at(0)].timeout = Ms(v); }},
    {.path = "tools.<tool>.output_limit_bytes",
     .kind = ValueKind::kPositiveInteger,
     .max = kMaxOutputLimit,
     .env = "",
     .default_value = "`tool_output_limit_bytes`",
     .description = "tool_output_limit_bytes for one tool.",
     .apply = [](Draft& d, const Names& names,
                 const Json& v) { d.tools[names.at(0)].output_limit = v.get<std::size_t>(); }},
};

}  // namespace

std::span<const Key> AllKeys() { return kKeys; }

std::string CheckPlaceholderName(std::string_view placeholder, std::string_view name) {
  if (placeholder == "<tool>" && name.find('-') != std::string_view::npos) {
    // Tools are named after their files with hyphens turned to underscores,
    // so a name with a hyphen would silently never match.
    std::string fixed(name);
    std::replace(fixed.begin(), fixed.end(), '-', '_');
    return "not a tool name (tool names use underscores: " + fixed + ")";
  }
  if (name.empty()) return "the name must not be empty";
  return {};
}

Config Finish(Draft draft) {
  Config config = std::move(draft.config);
  for (const auto& [name, overrides] : draft.tools) {
    executor::Limits limits = config.tools.defaults;
    if (overrides.timeout) limits.timeout = *overrides.timeout;
    if (overrides.output_limit) limits.output_limit = *overrides.output_limit;
    config.tools.per_tool[name] = limits;
  }
  return config;
}

}  // namespace ikigai::config
