#include "web_search/backends.h"

#include <cctype>
#include <cstdlib>

#include "base/format.h"
#include "base/utf8.h"
#include "toolkit/error_codes.h"
#include "toolkit/http.h"
#include "toolkit/json.h"

namespace ikigai::web_search {
namespace {

using toolkit::Json;
using toolkit::ToolError;
namespace code = toolkit::code;

constexpr std::size_t kMaxSnippetBytes = 600;
constexpr std::size_t kMaxAnswerBytes = 4 * 1024 * 1024;

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string WithoutTrailingSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

std::string UrlEncode(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

const char* KeyVariable(Provider provider) {
  return provider == Provider::kTavily ? "TAVILY_API_KEY" : "BRAVE_API_KEY";
}

std::string DisplayName(Provider provider) {
  switch (provider) {
    case Provider::kTavily:
      return "Tavily";
    case Provider::kBrave:
      return "Brave Search";
    case Provider::kSearxng:
      return "SearXNG";
  }
  return "?";
}

Backend Make(Provider provider) {
  switch (provider) {
    case Provider::kTavily: {
      std::string base = Env("IKIGAI_WEB_SEARCH_TAVILY_URL");
      return {provider, WithoutTrailingSlash(base.empty() ? "https://api.tavily.com" : base),
              Env("TAVILY_API_KEY")};
    }
    case Provider::kBrave: {
      std::string base = Env("IKIGAI_WEB_SEARCH_BRAVE_URL");
      return {provider, WithoutTrailingSlash(base.empty() ? "https://api.search.brave.com" : base),
              Env("BRAVE_API_KEY")};
    }
    case Provider::kSearxng:
      return {provider, WithoutTrailingSlash(Env("IKIGAI_WEB_SEARCH_SEARXNG_URL")), ""};
  }
  std::abort();
}

bool Configured(const Backend& backend) {
  return backend.provider == Provider::kSearxng ? !backend.base_url.empty() : !backend.key.empty();
}

std::string StringField(const Json& object, const char* name) {
  if (!object.is_object()) return {};
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

ToolError HttpError(const Backend& backend, long status, std::string_view body) {
  const std::string service = DisplayName(backend.provider);
  std::string message = service + " answered HTTP " + std::to_string(status);
  if ((status == 401 || status == 403) && backend.provider != Provider::kSearxng) {
    message += ": the API key was refused. Check " + std::string(KeyVariable(backend.provider)) +
               " (a valid, active key for " + service + ").";
  } else if (status == 403) {
    message +=
        ": the instance refused the request. Its JSON output may be disabled: add json "
        "to search.formats in the instance's settings.yml.";
  } else if (status == 429) {
    message += ": too many requests (rate limit or quota). Wait, or use another provider.";
  } else if (status >= 500) {
    message += ": a server error. Try again later.";
  } else {
    message += ".";
  }
  return {code::kHttpError,
          std::move(message),
          {{"status", status},
           {"provider", ProviderName(backend.provider)},
           {"excerpt", utf8::Repair(body.substr(0, utf8::SafePrefixLength(body, 300)))}}};
}

ToolError NetworkError(const Backend& backend, const toolkit::http::Failure& failure) {
  const std::string service = DisplayName(backend.provider) + " (" + backend.base_url + ")";
  if (failure.kind == toolkit::http::FailureKind::kTimeout) {
    return {code::kTimeout,
            "No answer from " + service + " within the tool's time limit. Try again later.",
            {{"provider", ProviderName(backend.provider)}}};
  }
  return {code::kFetchFailed,
          "Could not reach " + service + ": " + failure.message +
              ". Check the network, or the service's URL in the configuration.",
          {{"provider", ProviderName(backend.provider)}}};
}

}  // namespace

std::string_view ProviderName(Provider provider) {
  switch (provider) {
    case Provider::kTavily:
      return "tavily";
    case Provider::kBrave:
      return "brave";
    case Provider::kSearxng:
      return "searxng";
  }
  return "?";
}

Result<Backend, ToolError> ChooseBackend() {
  const std::string named = AsciiLower(Env("IKIGAI_WEB_SEARCH_PROVIDER"));
  if (!named.empty()) {
    Provider provider;
    if (named == "tavily") {
      provider = Provider::kTavily;
    } else if (named == "brave") {
      provider = Provider::kBrave;
    } else if (named == "searxng") {
      provider = Provider::kSearxng;
    } else {
      return Err(ToolError{code::kMissingCredentials,
                           "web_search.provider is '" + named +
                               "' in the configuration; it must be tavily, brave or searxng "
                               "(or left out to use the first one configured)."});
    }
    Backend backend = Make(provider);
    if (Configured(backend)) return backend;
    if (provider == Provider::kSearxng) {
      return Err(ToolError{code::kMissingCredentials,
                           "web_search.provider is searxng but web_search.searxng_url is not set: "
                           "set it in ~/.ikigai/config.json to your SearXNG instance "
                           "(\"web_search\": {\"searxng_url\": \"http://localhost:8888\"})."});
    }
    return Err(ToolError{code::kMissingCredentials,
                         "web_search.provider is " + named + " but " + KeyVariable(provider) +
                             " is not set: export it in the environment ikigai starts from "
                             "(tools see it only through ikigai)."});
  }
  for (Provider provider : {Provider::kTavily, Provider::kBrave, Provider::kSearxng}) {
    Backend backend = Make(provider);
    if (Configured(backend)) return backend;
  }
  return Err(ToolError{
      code::kMissingCredentials,
      "No web search service is configured. Use one of: TAVILY_API_KEY (Tavily, "
      "https://tavily.com) or BRAVE_API_KEY (Brave Search API) in the environment ikigai starts "
      "from, or web_search.searxng_url in ~/.ikigai/config.json for a SearXNG instance (no key "
      "needed)."});
}

std::string PlainText(std::string_view html) {
  std::string out;
  out.reserve(html.size());
  bool space = false;
  for (std::size_t i = 0; i < html.size(); ++i) {
    char c = html[i];
    const bool tag_start =
        i + 1 < html.size() &&
        (std::isalpha(static_cast<unsigned char>(html[i + 1])) || html[i + 1] == '/');
    if (c == '<' && tag_start) {
      const std::size_t end = html.find('>', i);
      if (end != std::string_view::npos) {
        i = end;
        continue;
      }
    }
    if (c == '&') {
      static const std::pair<std::string_view, char> kEntities[] = {
          {"&amp;", '&'},  {"&lt;", '<'},    {"&gt;", '>'},  {"&quot;", '"'},
          {"&#39;", '\''}, {"&#x27;", '\''}, {"&nbsp;", ' '}};
      for (const auto& [entity, ch] : kEntities) {
        if (html.substr(i).starts_with(entity)) {
          c = ch;
          i += entity.size() - 1;
          break;
        }
      }
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

Result<std::vector<SearchResult>, ToolError> Search(
    const Backend& backend, const std::string& query, int max_results,
    std::chrono::steady_clock::time_point deadline) {
  toolkit::http::Request request;
  request.deadline = deadline;
  request.max_body_bytes = kMaxAnswerBytes;
  request.headers = {"Accept: application/json"};
  switch (backend.provider) {
    case Provider::kTavily:
      request.method = "POST";
      request.url = backend.base_url + "/search";
      request.headers.push_back("Content-Type: application/json");
      request.headers.push_back("Authorization: Bearer " + backend.key);
      request.body = Json{{"query", query}, {"max_results", max_results}}.dump();
      break;
    case Provider::kBrave:
      request.url = backend.base_url + "/res/v1/web/search?q=" + UrlEncode(query) +
                    "&count=" + std::to_string(max_results);
      request.headers.push_back("X-Subscription-Token: " + backend.key);
      break;
    case Provider::kSearxng:
      request.url = backend.base_url + "/search?q=" + UrlEncode(query) + "&format=json";
      break;
  }
  auto response = toolkit::http::Perform(request);
  if (!response) return Err(NetworkError(backend, response.error()));
  if (response->status >= 400) return Err(HttpError(backend, response->status, response->body));

  const Json answer = Json::parse(response->body, nullptr, false);
  const Json* list = nullptr;
  if (answer.is_object()) {
    if (backend.provider == Provider::kBrave) {
      auto web = answer.find("web");
      if (web != answer.end() && web->is_object()) {
        auto results = web->find("results");
        if (results != web->end()) list = &*results;
      } else {
        static const Json kEmpty = Json::array();
        list = &kEmpty;  // Brave leaves out "web" when nothing matched
      }
    } else {
      auto results = answer.find("results");
      if (results != answer.end()) list = &*results;
    }
  }
  if (list == nullptr || !list->is_array()) {
    return Err(ToolError{code::kBadResponse,
                         DisplayName(backend.provider) + " (" + backend.base_url +
                             ") did not answer with its search API's JSON (HTTP " +
                             std::to_string(response->status) +
                             "). Check the service's URL in the configuration.",
                         {{"provider", ProviderName(backend.provider)}}});
  }
  const char* snippet_field = backend.provider == Provider::kBrave ? "description" : "content";
  std::vector<SearchResult> results;
  for (const Json& item : *list) {
    if (static_cast<int>(results.size()) == max_results) break;
    SearchResult result{PlainText(StringField(item, "title")), StringField(item, "url"),
                        PlainText(StringField(item, snippet_field))};
    if (result.url.empty()) continue;
    if (result.snippet.size() > kMaxSnippetBytes) {
      result.snippet.resize(utf8::SafePrefixLength(result.snippet, kMaxSnippetBytes - 3));
      result.snippet += "...";
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace ikigai::web_search
