// web_search-tool: a web search through Tavily, Brave Search or a SearXNG
// instance, whichever the user configured (issue 15; backends.cc).
#include <algorithm>
#include <string>

#include "toolkit/budget.h"
#include "toolkit/error_codes.h"
#include "toolkit/tool_main.h"
#include "web_search/backends.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Clock;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;
namespace web = ikigai::web_search;

constexpr std::string_view kSchema = R"json({
  "name": "web_search",
  "description": "Search the web and return the top results, each with title, URL and a snippet. Use web_fetch to read a result in full. Needs a search service: a Tavily or Brave Search API key, or a SearXNG instance, set up by the user. Returns: {query, provider, results: [{title, url, snippet}], output}.",
  "parameters": {
    "type": "object",
    "properties": {
      "query": {
        "type": "string",
        "description": "What to search for"
      },
      "max_results": {
        "type": "integer",
        "description": "How many results, 1 to 20; default 5"
      }
    },
    "required": ["query"]
  },
  "env": ["TAVILY_API_KEY", "BRAVE_API_KEY"],
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": true}
})json";

constexpr auto kDefaultTimeLimit = std::chrono::milliseconds(30000);

Clock::time_point StopTime(const CallContext& context) {
  const Clock::time_point deadline = context.deadline.value_or(context.start + kDefaultTimeLimit);
  const auto margin =
      std::min<Clock::duration>(std::chrono::seconds(1), (deadline - context.start) / 5);
  return deadline - margin;
}

Json Run(const Args& args, const CallContext& context) {
  const std::string& query = args.String("query");
  const std::int64_t max_results = args.OptionalInt("max_results").value_or(5);
  if (query.find_first_not_of(" \t\n\r") == std::string::npos) {
    return ToolError{code::kInvalidArg, "Parameter 'query' is empty; say what to search for."}
        .ToJson();
  }
  if (max_results < 1 || max_results > 20) {
    return ToolError{code::kInvalidArg, "Parameter 'max_results' must be from 1 to 20, got " +
                                            std::to_string(max_results) + "."}
        .ToJson();
  }
  auto backend = web::ChooseBackend();
  if (!backend) return backend.error().ToJson();
  auto results = web::Search(*backend, query, static_cast<int>(max_results), StopTime(context));
  if (!results) return results.error().ToJson();

  Json list = Json::array();
  std::string output;
  int n = 0;
  for (const web::SearchResult& r : *results) {
    std::string entry =
        std::to_string(++n) + ". " + (r.title.empty() ? r.url : r.title) + "\n   " + r.url + "\n";
    if (!r.snippet.empty()) entry += "   " + r.snippet + "\n";
    // 20 results of at most 600-byte snippets fit; the check is for titles
    // or URLs of absurd length.
    if (ikigai::toolkit::JsonEscapedSize(output) + 2 * ikigai::toolkit::JsonEscapedSize(entry) >
        ikigai::toolkit::kTextBudget / 2) {
      break;
    }
    if (!output.empty()) output += "\n";
    output += entry;
    list.push_back({{"title", r.title}, {"url", r.url}, {"snippet", r.snippet}});
  }
  if (output.empty()) output = "No results for: " + query + "\n";
  return Json{{"query", query},
              {"provider", web::ProviderName(backend->provider)},
              {"results", std::move(list)},
              {"output", std::move(output)}};
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
