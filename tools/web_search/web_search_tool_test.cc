// web_search-tool through its real executable against local servers that
// speak the Tavily, Brave Search and SearXNG APIs (their endpoints pointed
// here by IKIGAI_WEB_SEARCH_TAVILY_URL and IKIGAI_WEB_SEARCH_BRAVE_URL).
#include <gtest/gtest.h>

#include <mutex>
#include <string>

#include "testing/local_http_server.h"
#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

// The tool's environment is the test's plus these; the test process must not
// lend it real keys.
class WebSearchTool : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"TAVILY_API_KEY", "BRAVE_API_KEY", "IKIGAI_WEB_SEARCH_PROVIDER",
                             "IKIGAI_WEB_SEARCH_SEARXNG_URL", "IKIGAI_WEB_SEARCH_TAVILY_URL",
                             "IKIGAI_WEB_SEARCH_BRAVE_URL"}) {
      unsetenv(name);
    }
  }
};

// One server speaking all three APIs, recording what it was asked.
struct SearchServer {
  LocalHttpServer http;
  std::mutex mutex;
  std::string last_path;
  httplib::Request last;
  int status = 200;

  SearchServer() {
    http.server.Post("/tavily/search", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      if (status != 200) return Fail(res);
      res.set_content(R"({"query":"q","results":[
          {"title":"Tavily one","url":"https://one.example/","content":"First &amp; best","score":0.9},
          {"title":"Tavily two","url":"https://two.example/","content":"Second: 1 < 2 <b>bold</b>","score":0.5}]})",
                      "application/json");
    });
    http.server.Get("/brave/res/v1/web/search",
                    [this](const httplib::Request& req, httplib::Response& res) {
                      Record(req);
                      if (status != 200) return Fail(res);
                      res.set_content(R"({"type":"search","web":{"results":[
          {"title":"Brave <strong>one</strong>","url":"https://b1.example/","description":"A <strong>match</strong> here"}]}})",
                                      "application/json");
                    });
    http.server.Get("/searx/search", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      if (status != 200) return Fail(res);
      std::string results;
      for (int i = 0; i < 8; ++i) {
        if (i) results += ",";
        results += R"({"title":"Searx )" + std::to_string(i) + R"(","url":"https://s)" +
                   std::to_string(i) + R"(.example/","content":"snippet )" + std::to_string(i) +
                   "\"}";
      }
      res.set_content(R"({"query":"q","results":[)" + results + "]}", "application/json");
    });
    EXPECT_TRUE(http.Start());
  }

  void Record(const httplib::Request& req) {
    std::lock_guard lock(mutex);
    last_path = req.path;
    last = req;
  }
  void Fail(httplib::Response& res) {
    res.status = status;
    res.set_content(R"({"detail":{"error":"Unauthorized: missing or invalid API key."}})",
                    "application/json");
  }

  Env Endpoints() const {
    return {{"IKIGAI_WEB_SEARCH_TAVILY_URL", http.Url("/tavily")},
            {"IKIGAI_WEB_SEARCH_BRAVE_URL", http.Url("/brave/")}};
  }
};

ToolRun Search(const Json& args, Env env) {
  ToolRun run = RunTool("web_search", args, {.env = std::move(env)});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.json.is_discarded()) << run.out;
  return run;
}

Env With(Env env, Env more) {
  env.insert(env.end(), more.begin(), more.end());
  return env;
}

TEST_F(WebSearchTool, SchemaNeedsNoKeyAndNamesTheVariables) {
  ToolRun run = RunExecutable(ToolPath("web_search"), "", {.argv_extra = {"--schema"}});
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.json["name"], "web_search");
  EXPECT_EQ(run.json["env"], Json::array({"TAVILY_API_KEY", "BRAVE_API_KEY"}));
  EXPECT_EQ(run.json["annotations"]["openWorldHint"], true);
  EXPECT_EQ(run.json["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(run.json["parameters"]["required"], Json::array({"query"}));
}

TEST_F(WebSearchTool, NothingConfiguredNamesAllThreeWays) {
  ToolRun run = Search({{"query", "x"}}, {});
  EXPECT_EQ(run.json["error_code"], "MISSING_CREDENTIALS");
  const std::string message = run.json["error"];
  for (const char* way : {"TAVILY_API_KEY", "BRAVE_API_KEY", "web_search.searxng_url"}) {
    EXPECT_NE(message.find(way), std::string::npos) << way << " in " << message;
  }
}

TEST_F(WebSearchTool, TavilyGetsAPostWithTheKeyAndAnswersResults) {
  SearchServer server;
  ToolRun run = Search({{"query", "c++ json"}, {"max_results", 2}},
                       With(server.Endpoints(), {{"TAVILY_API_KEY", "tvly-secret"}}));
  EXPECT_EQ(run.json["provider"], "tavily") << run.out;
  EXPECT_EQ(run.json["query"], "c++ json");
  ASSERT_EQ(run.json["results"].size(), 2u);
  EXPECT_EQ(run.json["results"][0], (Json{{"title", "Tavily one"},
                                          {"url", "https://one.example/"},
                                          {"snippet", "First & best"}}));
  EXPECT_EQ(run.json["output"],
            "1. Tavily one\n   https://one.example/\n   First & best\n\n"
            "2. Tavily two\n   https://two.example/\n   Second: 1 < 2 bold\n");
  std::lock_guard lock(server.mutex);
  EXPECT_EQ(server.last_path, "/tavily/search");
  EXPECT_EQ(server.last.get_header_value("Authorization"), "Bearer tvly-secret");
  const Json body = Json::parse(server.last.body, nullptr, false);
  EXPECT_EQ(body, (Json{{"query", "c++ json"}, {"max_results", 2}}));
}

TEST_F(WebSearchTool, BraveGetsTheQueryAndTokenAndTagsAreStripped) {
  SearchServer server;
  ToolRun run =
      Search({{"query", "a&b c"}}, With(server.Endpoints(), {{"BRAVE_API_KEY", "brave-secret"}}));
  EXPECT_EQ(run.json["provider"], "brave") << run.out;
  ASSERT_EQ(run.json["results"].size(), 1u);
  EXPECT_EQ(run.json["results"][0]["title"], "Brave one");
  EXPECT_EQ(run.json["results"][0]["snippet"], "A match here");
  std::lock_guard lock(server.mutex);
  EXPECT_EQ(server.last_path, "/brave/res/v1/web/search");
  EXPECT_EQ(server.last.get_param_value("q"), "a&b c");
  EXPECT_EQ(server.last.get_param_value("count"), "5");
  EXPECT_EQ(server.last.get_header_value("X-Subscription-Token"), "brave-secret");
  EXPECT_EQ(server.last.get_header_value("Accept"), "application/json");
}

TEST_F(WebSearchTool, SearxngNeedsNoKeyAndIsCutToMaxResults) {
  SearchServer server;
  ToolRun run = Search({{"query", "ikigai"}, {"max_results", 3}},
                       {{"IKIGAI_WEB_SEARCH_SEARXNG_URL", server.http.Url("/searx/")}});
  EXPECT_EQ(run.json["provider"], "searxng") << run.out;
  EXPECT_EQ(run.json["results"].size(), 3u);
  EXPECT_EQ(run.json["results"][2]["url"], "https://s2.example/");
  std::lock_guard lock(server.mutex);
  EXPECT_EQ(server.last_path, "/searx/search");
  EXPECT_EQ(server.last.get_param_value("q"), "ikigai");
  EXPECT_EQ(server.last.get_param_value("format"), "json");
}

TEST_F(WebSearchTool, FirstConfiguredWinsUnlessTheProviderIsNamed) {
  SearchServer server;
  const Env all =
      With(server.Endpoints(), {{"TAVILY_API_KEY", "t"},
                                {"BRAVE_API_KEY", "b"},
                                {"IKIGAI_WEB_SEARCH_SEARXNG_URL", server.http.Url("/searx")}});
  EXPECT_EQ(Search({{"query", "q"}}, all).json["provider"], "tavily");
  const Env brave_and_searx =
      With(server.Endpoints(),
           {{"BRAVE_API_KEY", "b"}, {"IKIGAI_WEB_SEARCH_SEARXNG_URL", server.http.Url("/searx")}});
  EXPECT_EQ(Search({{"query", "q"}}, brave_and_searx).json["provider"], "brave");
  EXPECT_EQ(Search({{"query", "q"}}, With(all, {{"IKIGAI_WEB_SEARCH_PROVIDER", "searxng"}}))
                .json["provider"],
            "searxng");
  EXPECT_EQ(Search({{"query", "q"}}, With(all, {{"IKIGAI_WEB_SEARCH_PROVIDER", "brave"}}))
                .json["provider"],
            "brave");
}

TEST_F(WebSearchTool, ANamedProviderWithoutItsKeyIsMissingCredentials) {
  SearchServer server;
  ToolRun run = Search(
      {{"query", "q"}},
      With(server.Endpoints(), {{"TAVILY_API_KEY", "t"}, {"IKIGAI_WEB_SEARCH_PROVIDER", "brave"}}));
  EXPECT_EQ(run.json["error_code"], "MISSING_CREDENTIALS");
  EXPECT_NE(run.json["error"].get<std::string>().find("BRAVE_API_KEY"), std::string::npos);
  run = Search({{"query", "q"}}, {{"IKIGAI_WEB_SEARCH_PROVIDER", "searxng"}});
  EXPECT_EQ(run.json["error_code"], "MISSING_CREDENTIALS");
  EXPECT_NE(run.json["error"].get<std::string>().find("web_search.searxng_url"), std::string::npos);
  run = Search({{"query", "q"}}, {{"IKIGAI_WEB_SEARCH_PROVIDER", "google"}});
  EXPECT_EQ(run.json["error_code"], "MISSING_CREDENTIALS");
  EXPECT_NE(run.json["error"].get<std::string>().find("tavily, brave or searxng"),
            std::string::npos);
}

TEST_F(WebSearchTool, ARefusedKeyIsAnHttpErrorSayingSo) {
  SearchServer server;
  server.status = 401;
  ToolRun run = Search({{"query", "q"}}, With(server.Endpoints(), {{"TAVILY_API_KEY", "bad"}}));
  EXPECT_EQ(run.json["error_code"], "HTTP_ERROR") << run.out;
  EXPECT_EQ(run.json["status"], 401);
  const std::string message = run.json["error"];
  EXPECT_NE(message.find("key was refused"), std::string::npos) << message;
  EXPECT_NE(message.find("TAVILY_API_KEY"), std::string::npos) << message;
  server.status = 503;
  run = Search({{"query", "q"}}, With(server.Endpoints(), {{"BRAVE_API_KEY", "b"}}));
  EXPECT_EQ(run.json["error_code"], "HTTP_ERROR");
  EXPECT_EQ(run.json["status"], 503);
}

TEST_F(WebSearchTool, NotTheApisJsonIsBadResponse) {
  LocalHttpServer other;
  other.server.Get("/search", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<html>a login page</html>", "text/html");
  });
  ASSERT_TRUE(other.Start());
  ToolRun run = Search({{"query", "q"}}, {{"IKIGAI_WEB_SEARCH_SEARXNG_URL", other.Url("")}});
  EXPECT_EQ(run.json["error_code"], "BAD_RESPONSE") << run.out;
}

TEST_F(WebSearchTool, ASlowServiceHitsTheTimeLimit) {
  LocalHttpServer slow;
  slow.server.Get("/search", [&](const httplib::Request&, httplib::Response& res) {
    slow.Hold();  // answers only when the test ends
    res.set_content(R"({"results":[]})", "application/json");
  });
  ASSERT_TRUE(slow.Start());
  ToolRun run = Search({{"query", "q"}}, {{"IKIGAI_WEB_SEARCH_SEARXNG_URL", slow.Url("")},
                                          {"IKIGAI_TOOL_DEADLINE_MS", "1500"}});
  EXPECT_EQ(run.json["error_code"], "TIMEOUT") << run.out;
  EXPECT_EQ(run.json["provider"], "searxng");
  slow.Release();
}

TEST_F(WebSearchTool, BadArgumentsAreInvalidArg) {
  const Env searx = {{"IKIGAI_WEB_SEARCH_SEARXNG_URL", "http://127.0.0.1:9"}};
  EXPECT_EQ(Search({{"query", "q"}, {"max_results", 0}}, searx).json["error_code"], "INVALID_ARG");
  EXPECT_EQ(Search({{"query", "q"}, {"max_results", 21}}, searx).json["error_code"], "INVALID_ARG");
  EXPECT_EQ(Search({{"query", "  "}}, searx).json["error_code"], "INVALID_ARG");
  EXPECT_EQ(Search(Json::object(), searx).json["error_code"], "INVALID_ARG");
}

}  // namespace
}  // namespace ikigai::testing
