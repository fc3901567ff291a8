// The search services web_search speaks to: Tavily, Brave Search and
// SearXNG. Each turns a query into one HTTP request and its JSON answer
// into the same list of results.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "toolkit/tool_error.h"

namespace ikigai::web_search {

enum class Provider { kTavily, kBrave, kSearxng };

std::string_view ProviderName(Provider provider);  // "tavily", "brave", "searxng"

// Which service to use and how to reach it, from the environment the host
// gives the tool.
struct Backend {
  Provider provider;
  std::string base_url;  // without a trailing '/'
  std::string key;       // empty for SearXNG
};

// IKIGAI_WEB_SEARCH_PROVIDER names one, else the first configured of Tavily
// (TAVILY_API_KEY), Brave (BRAVE_API_KEY), SearXNG
// (IKIGAI_WEB_SEARCH_SEARXNG_URL). None: MISSING_CREDENTIALS.
Result<Backend, toolkit::ToolError> ChooseBackend();

struct SearchResult {
  std::string title;
  std::string url;
  std::string snippet;
};

Result<std::vector<SearchResult>, toolkit::ToolError> Search(
    const Backend& backend, const std::string& query, int max_results,
    std::chrono::steady_clock::time_point deadline);

// Text from a search service's snippet: tags removed (Brave marks the
// matched words with <strong>), common entities decoded, whitespace
// collapsed.
std::string PlainText(std::string_view html);

}  // namespace ikigai::web_search
