#include "config/keys.h"

#include <algorithm>

#include "subagents/subagent.h"

namespace ikigai::config {
namespace {

using Json = nlohmann::json;
using Names = std::vector<std::string>;

constexpr std::int64_t kMaxTimeoutMs = 24 * 60 * 60 * 1000;  // a day
constexpr std::chrono::milliseconds kBashTimeout{10 * 60 * 1000};
// A subagent (the task tool) works through many rounds: its time cap.
constexpr std::chrono::milliseconds kTaskTimeout = subagents::kDefaultTimeCap;
constexpr std::int64_t kMaxOutputLimit = 16 * 1024 * 1024;  // 16 MB
constexpr std::int64_t kMaxSchemaTimeoutMs = 60 * 1000;

void Append(std::vector<std::string>& list, const Json& value) {
  for (const Json& item : value) list.push_back(item.get<std::string>());
}

constexpr const char* kAllowPrivateVariable = "IKIGAI_WEB_FETCH_ALLOW_PRIVATE_NETWORKS";

// A tool's setting, as a variable set for its calls; "" unsets it (a later
// layer turning it off).
void SetToolEnv(Draft& d, const std::string& tool, const std::string& name,
                const std::string& value) {
  auto& env = d.config.tools.tool_env[tool];
  if (value.empty()) {
    env.erase(name);
  } else {
    env[name] = value;
  }
}

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
     .description = "tool_timeout_ms for one tool. For `bash` the default is 600000 (ten "
                    "minutes) or `tool_timeout_ms` if that is longer.",
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
    {.path = "provider",
     .kind = ValueKind::kString,
     .choices = "openai anthropic gemini",
     .env = "IKIGAI_PROVIDER",
     .default_value = "anthropic if ANTHROPIC_API_KEY is set, else openai if OPENAI_API_KEY or "
                      "OPENAI_BASE_URL is set, else gemini if GEMINI_API_KEY is set, else "
                      "anthropic",
     .description = "Which API to talk to: `openai` (any OpenAI-compatible Chat Completions "
                    "server), `anthropic` (the Messages API) or `gemini` (Google's Gemini "
                    "API). `--provider` overrides it.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.provider = v; }},
    {.path = "model",
     .kind = ValueKind::kString,
     .env = "IKIGAI_MODEL",
     .default_value = "`claude-sonnet-4-5` (anthropic), `gpt-4.1` (openai), `gemini-2.5-flash` "
                      "(gemini)",
     .description = "The model's name as the provider knows it. `--model` and `/model` "
                    "override it.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.model = v; }},
    {.path = "openai.base_url",
     .kind = ValueKind::kString,
     .env = "OPENAI_BASE_URL",
     .default_value = "https://api.openai.com/v1",
     .description = "Where Chat Completions is served; point it at llama.cpp, Ollama "
                    "(http://localhost:11434/v1), vLLM or any compatible server.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.openai_base_url = v; }},
    {.path = "openai.api_key",
     .kind = ValueKind::kString,
     .env = "OPENAI_API_KEY",
     .default_value = "(none)",
     .description = "The OpenAI key. Prefer the environment variable to a file.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.openai_api_key = v; }},
    {.path = "anthropic.base_url",
     .kind = ValueKind::kString,
     .env = "ANTHROPIC_BASE_URL",
     .default_value = "https://api.anthropic.com",
     .description = "Where the Anthropic Messages API is served.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.anthropic_base_url = v; }},
    {.path = "anthropic.api_key",
     .kind = ValueKind::kString,
     .env = "ANTHROPIC_API_KEY",
     .default_value = "(none)",
     .description = "The Anthropic key. Prefer the environment variable to a file.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.anthropic_api_key = v; }},
    {.path = "gemini.base_url",
     .kind = ValueKind::kString,
     .env = "GOOGLE_GEMINI_BASE_URL",
     .default_value = "https://generativelanguage.googleapis.com",
     .description = "Where the Gemini API is served (requests go to "
                    "`{base}/v1beta/models/{model}:streamGenerateContent`).",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.gemini_base_url = v; }},
    {.path = "gemini.api_key",
     .kind = ValueKind::kString,
     .env = "GEMINI_API_KEY",
     .default_value = "(none)",
     .description = "The Gemini key. Prefer the environment variable to a file.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.gemini_api_key = v; }},
    {.path = "max_rounds",
     .kind = ValueKind::kPositiveInteger,
     .max = 1000,
     .env = "",
     .default_value = "50",
     .description = "The most model turns one prompt may take (each turn that calls tools is "
                    "followed by another).",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { d.config.agent.max_rounds = v.get<int>(); }},
    {.path = "max_tokens",
     .kind = ValueKind::kPositiveInteger,
     .max = 1000000,
     .env = "",
     .default_value = "8192",
     .description = "The most tokens the model may write in one turn.",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { d.config.agent.max_tokens = v.get<int>(); }},
    {.path = "context_window",
     .kind = ValueKind::kPositiveInteger,
     .max = 100'000'000,
     .env = "",
     .default_value = "the model's (a table of known models; 128000 for others)",
     .description = "How many tokens the model reads at most: when a conversation nears it, "
                    "it is compacted into a summary.",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { d.config.agent.context_window = v.get<long>(); }},
    {.path = "compact_threshold_percent",
     .kind = ValueKind::kPositiveInteger,
     .max = 100,
     .env = "",
     .default_value = "80",
     .description = "Compact the conversation before a request that would fill more than this "
                    "share of the context window (or leave less than max_tokens and 16k).",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { d.config.agent.compact_threshold_percent = v.get<int>(); }},
    {.path = "reasoning_effort",
     .kind = ValueKind::kString,
     .choices = "minimal low medium high",
     .env = "",
     .default_value = "(the provider's default)",
     .description = "How hard a reasoning model (OpenAI o series, gpt-5) thinks before it "
                    "answers; other models ignore it.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.reasoning_effort = v; }},
    {.path = "system_prompt",
     .kind = ValueKind::kString,
     .env = "",
     .default_value = "ikigai's own (bash fundamentals and tool conventions)",
     .description = "Replaces the default system prompt.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.system_prompt = v; }},
    {.path = "agents_md",
     .kind = ValueKind::kBoolean,
     .env = "",
     .default_value = "true",
     .description = "Append the project's AGENTS.md (in the working directory) to the system "
                    "prompt.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.agent.agents_md = v; }},
    {.path = "permissions.mode",
     .kind = ValueKind::kString,
     .choices = "read-only ask auto-edit auto unrestricted",
     .env = "IKIGAI_PERMISSIONS",
     .default_value = "ask",
     .description = "What runs without asking (docs/security.md): `read-only`, `ask`, "
                    "`auto-edit`, `auto` or `unrestricted` (no sandbox). `--permissions` and "
                    "`/permissions` override it.",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.permissions.mode = v; }},
    {.path = "permissions.allow",
     .kind = ValueKind::kStringList,
     .env = "",
     .default_value = "[]",
     .description = "Rules for calls that run without asking: `TOOL`, `bash(PREFIX:*)`, "
                    "`bash(COMMAND)`, `file_edit(GLOB)`, `web_fetch(domain:HOST)`. Not in "
                    "`read-only` mode.",
     .apply = [](Draft& d, const Names&, const Json& v) { Append(d.config.permissions.allow, v); }},
    {.path = "permissions.deny",
     .kind = ValueKind::kStringList,
     .env = "",
     .default_value = "[]",
     .description = "Rules for calls that never run, in every mode (deny beats allow).",
     .apply = [](Draft& d, const Names&, const Json& v) { Append(d.config.permissions.deny, v); }},
    {.path = "sandbox.network",
     .kind = ValueKind::kBoolean,
     .env = "",
     .default_value = "false",
     .description = "Give every tool process the network (otherwise only tools whose schema "
                    "says `openWorldHint: true`).",
     .apply = [](Draft& d, const Names&, const Json& v) { d.config.sandbox.network = v; }},
    {.path = "sandbox.writable_roots",
     .kind = ValueKind::kStringList,
     .env = "",
     .default_value = "[]",
     .description = "Directories tools may write besides the workspace and the temporary "
                    "directories (absolute, or `~/...`). One that is `/`, `~` or above it, or "
                    "holds a secret (`~/.config`), is left out, with a note at the start.",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { Append(d.config.sandbox.writable_roots, v); }},
    {.path = "tools.env_passthrough",
     .kind = ValueKind::kStringList,
     .env = "",
     .default_value = "[]",
     .description = "Secret-looking environment variables (`*_API_KEY`, `*_TOKEN`, `*SECRET*`, "
                    "`*PASSWORD*`, ...) that tool processes may see anyway.",
     .apply = [](Draft& d, const Names&,
                 const Json& v) { Append(d.config.tools.env_passthrough, v); }},
    {.path = "web_fetch.allow_private_networks",
     .kind = ValueKind::kBoolean,
     .env = "",
     .default_value = "false",
     .description = "Let web_fetch reach loopback, private, link-local and CGNAT addresses "
                    "(a local dev server); otherwise they are refused.",
     .apply =
         [](Draft& d, const Names&, const Json& v) {
           SetToolEnv(d, "web_fetch", kAllowPrivateVariable, v.get<bool>() ? "1" : "");
         }},
    {.path = "web_search.provider",
     .kind = ValueKind::kString,
     .choices = "tavily brave searxng",
     .env = "",
     .default_value = "the first configured of tavily, brave and searxng",
     .description = "Which search service web_search uses: `tavily` (TAVILY_API_KEY), `brave` "
                    "(BRAVE_API_KEY) or `searxng` (web_search.searxng_url).",
     .apply =
         [](Draft& d, const Names&, const Json& v) {
           SetToolEnv(d, "web_search", "IKIGAI_WEB_SEARCH_PROVIDER", v.get<std::string>());
         }},
    {.path = "web_search.searxng_url",
     .kind = ValueKind::kString,
     .env = "",
     .default_value = "(none)",
     .description = "A SearXNG instance for web_search (no key needed; its JSON format must be "
                    "enabled), e.g. `http://localhost:8888`.",
     .apply =
         [](Draft& d, const Names&, const Json& v) {
           SetToolEnv(d, "web_search", "IKIGAI_WEB_SEARCH_SEARXNG_URL", v.get<std::string>());
         }},
    {.path = "hooks.<event>",
     .kind = ValueKind::kHookList,
     .env = "",
     .default_value = "[]",
     .description = "Commands run at an event (docs/hooks.md): `PreToolUse`, `PostToolUse`, "
                    "`UserPromptSubmit`, `Stop` or `SessionStart`; a list of `{matcher, command, "
                    "timeout_ms}`.",
     .apply =
         [](Draft& d, const Names& names, const Json& v) {
           auto& list =
               d.config.hooks.by_event[static_cast<std::size_t>(*hooks::ParseEvent(names.at(0)))];
           for (hooks::Hook& hook : hooks::ParseHookList(v, d.source))
             list.push_back(std::move(hook));
         }},
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
  if (placeholder == "<event>" && !hooks::ParseEvent(name)) {
    return "unknown hook event (known: " + std::string(hooks::kEventNames) + ")";
  }
  if (name.empty()) return "the name must not be empty";
  return {};
}

Config Finish(Draft draft) {
  Config config = std::move(draft.config);
  // Builds and test runs take minutes: bash gets ten unless told otherwise
  // (or the default for every tool is longer).
  if (!draft.tools["bash"].timeout) {
    draft.tools["bash"].timeout = std::max(kBashTimeout, config.tools.defaults.timeout);
  }
  if (!draft.tools["task"].timeout) {
    draft.tools["task"].timeout = std::max(kTaskTimeout, config.tools.defaults.timeout);
  }
  // ask_user waits for the user, who may be away: only the longest deadline.
  if (!draft.tools["ask_user"].timeout) {
    draft.tools["ask_user"].timeout = std::chrono::milliseconds(kMaxTimeoutMs);
  }
  for (const auto& [name, overrides] : draft.tools) {
    executor::Limits limits = config.tools.defaults;
    if (overrides.timeout) limits.timeout = *overrides.timeout;
    if (overrides.output_limit) limits.output_limit = *overrides.output_limit;
    config.tools.per_tool[name] = limits;
  }
  return config;
}

}  // namespace ikigai::config
