#include "agent/context_window.h"

#include <algorithm>
#include <array>
#include <utility>

namespace ikigai::agent {
namespace {

constexpr long kDefaultWindow = 128'000;
constexpr long kMargin = 16'000;

// Longest prefixes first where one is a prefix of another.
constexpr std::array<std::pair<std::string_view, long>, 20> kWindows = {{
    {"claude-", 200'000},                           // every Claude 3, 3.5, 3.7, 4 and 4.x model
    {"gpt-4.1", 1'047'576},                         // gpt-4.1, -mini, -nano
    {"gpt-4o", 128'000},                            // gpt-4o, -mini
    {"gpt-4-turbo", 128'000},                       //
    {"gpt-4", 8'192},                               // the original gpt-4
    {"gpt-3.5-turbo", 16'385}, {"gpt-5", 400'000},  // gpt-5, -mini, -nano
    {"o1-mini", 128'000},      {"o1", 200'000},         {"o3-mini", 200'000},
    {"o3", 200'000},           {"o4-mini", 200'000},    {"gemini-1.5-pro", 2'097'152},
    {"gemini-1.5", 1'048'576}, {"gemini-2", 1'048'576},  // 2.0 and 2.5, flash and pro
    {"gemini-3", 1'048'576},   {"gemini-", 1'048'576},  {"codex-", 400'000},
    {"deepseek-", 128'000},    {"qwen", 128'000},
}};

}  // namespace

long KnownContextWindow(std::string_view model) {
  // A provider prefix ("openai/gpt-4o", "models/gemini-2.0-flash") says nothing.
  if (const auto slash = model.rfind('/'); slash != std::string_view::npos) {
    model.remove_prefix(slash + 1);
  }
  std::size_t best = 0;
  long window = kDefaultWindow;
  for (const auto& [prefix, tokens] : kWindows) {
    if (model.starts_with(prefix) && prefix.size() > best) {
      best = prefix.size();
      window = tokens;
    }
  }
  return window;
}

long CompactionThreshold(long window, long max_output_tokens, int percent) {
  const long by_percent = window / 100 * percent;
  const long by_room = window - max_output_tokens - kMargin;
  return std::max(window / 4, std::min(by_percent, by_room));
}

}  // namespace ikigai::agent
