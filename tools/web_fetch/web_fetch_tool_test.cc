// web_fetch-tool through its real executable against a real HTTP server on
// loopback (which the tool refuses unless private networks are allowed).
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "testing/local_http_server.h"
#include "testing/tool_runner.h"

namespace ikigai::testing {
namespace {

const std::pair<std::string, std::string> kAllowPrivate{"IKIGAI_WEB_FETCH_ALLOW_PRIVATE_NETWORKS",
                                                        "1"};

ToolRun Fetch(const Json& args, RunOptions options = {}) {
  ToolRun run = RunTool("web_fetch", args, options);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.json.is_discarded()) << run.out;
  return run;
}

ToolRun FetchAllowed(const Json& args) { return Fetch(args, {.env = {kAllowPrivate}}); }

std::string Text(const Json& value) { return value.is_string() ? value.get<std::string>() : ""; }

TEST(WebFetchTool, SchemaAsksForTheNetwork) {
  ToolRun run = RunExecutable(ToolPath("web_fetch"), "", {.argv_extra = {"--schema"}});
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.json["name"], "web_fetch");
  EXPECT_EQ(run.json["annotations"]["openWorldHint"], true);
  EXPECT_EQ(run.json["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(run.json["annotations"]["destructiveHint"], false);
  EXPECT_EQ(run.json["parameters"]["required"], Json::array({"url"}));
  EXPECT_EQ(run.json["parameters"]["properties"]["offset"]["type"], "integer");
}

TEST(WebFetchTool, LoopbackIsRefusedByDefaultAndAllowedBySetting) {
  LocalHttpServer server;
  std::atomic<int> hits{0};
  server.server.Get("/", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.set_content("<p>local dev server</p>", "text/html");
  });
  ASSERT_TRUE(server.Start());

  ToolRun refused = Fetch({{"url", server.Url("/")}});
  EXPECT_EQ(refused.json["error_code"], "BLOCKED_ADDRESS");
  EXPECT_EQ(refused.json["address"], "127.0.0.1");
  const std::string message = Text(refused.json["error"]);
  EXPECT_NE(message.find("127.0.0.1"), std::string::npos) << message;
  EXPECT_NE(message.find("allow_private_networks"), std::string::npos) << message;
  EXPECT_NE(message.find(".ikigai/config.json"), std::string::npos) << message;
  EXPECT_EQ(hits, 0);

  ToolRun allowed = FetchAllowed({{"url", server.Url("/")}});
  EXPECT_EQ(allowed.json["content"], "local dev server\n") << allowed.out;
  EXPECT_EQ(allowed.json["status"], 200);
  EXPECT_EQ(hits, 1);
}

TEST(WebFetchTool, AnHtmlPageBecomesMarkdownWithItsTitle) {
  LocalHttpServer server;
  server.server.Get("/post/1", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"html(<!doctype html><html><head><title>Release notes</title>
      <script>track()</script><style>h1{}</style></head><body>
      <nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
      <main><h1>Version 2</h1><p>See <a href="../docs">the docs</a>.</p>
      <ul><li>Faster<ol><li>parsing</li><li>printing</li></ol></li><li>Smaller</li></ul>
      <pre><code class="language-sh">make install</code></pre>
      <table><tr><th>Old</th><th>New</th></tr><tr><td>1.9</td><td>2.0</td></tr></table>
      </main><footer>(c) us</footer></body></html>)html",
                    "text/html; charset=utf-8");
  });
  ASSERT_TRUE(server.Start());
  ToolRun run = FetchAllowed({{"url", server.Url("/post/1")}});
  EXPECT_EQ(run.json["url"], server.Url("/post/1"));
  EXPECT_EQ(run.json["final_url"], server.Url("/post/1"));
  EXPECT_EQ(run.json["status"], 200);
  EXPECT_EQ(run.json["content_type"], "text/html; charset=utf-8");
  EXPECT_EQ(run.json["title"], "Release notes");
  EXPECT_EQ(run.json["truncated"], false);
  EXPECT_FALSE(run.json.contains("next_offset"));
  const std::string expected = "# Version 2\n\nSee [the docs](" + server.Url("/docs") +
                               ").\n\n- Faster\n  1. parsing\n  2. printing\n- Smaller\n\n"
                               "```sh\nmake install\n```\n\n| Old | New |\n| --- | --- |\n"
                               "| 1.9 | 2.0 |\n";
  EXPECT_EQ(run.json["content"], expected);
  EXPECT_EQ(run.json["total_length"], expected.size());
}

TEST(WebFetchTool, RedirectsAreFollowedUpToTen) {
  LocalHttpServer server;
  server.server.Get(R"(/r/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
    const int n = std::stoi(req.matches[1]);
    if (n == 0) {
      res.set_content("{\"arrived\": true}", "application/json");
    } else {
      res.set_redirect("/r/" + std::to_string(n - 1), 302);
    }
  });
  ASSERT_TRUE(server.Start());
  ToolRun run = FetchAllowed({{"url", server.Url("/r/10")}});
  EXPECT_EQ(run.json["final_url"], server.Url("/r/0")) << run.out;
  EXPECT_EQ(run.json["content"], "{\"arrived\": true}");  // JSON passes through as is
  EXPECT_EQ(run.json["content_type"], "application/json");

  ToolRun loop = FetchAllowed({{"url", server.Url("/r/11")}});
  EXPECT_EQ(loop.json["error_code"], "TOO_MANY_REDIRECTS") << loop.out;
}

TEST(WebFetchTool, ALargePageComesInPiecesThatJoinUp) {
  // About 6 MB of HTML: 60000 paragraphs whose Markdown is known.
  std::string html = "<html><body>";
  std::string expected;
  for (int i = 0; i < 60000; ++i) {
    const std::string text = "Paragraph " + std::to_string(i) +
                             " of a long page, with enough words to make it wide " +
                             std::string(40, 'w') + ".";
    html += "<p>" + text + "</p>\n";
    expected += text + (i + 1 < 60000 ? "\n\n" : "\n");
  }
  html += "</body></html>";
  ASSERT_GT(html.size(), 6u * 1000 * 1000);
  LocalHttpServer server;
  // Through a content provider: cpp-httplib then sends the body as is,
  // where set_content would compress it with brotli at its slowest setting
  // (about 20 s for 6 MB on a busy machine).
  server.server.Get("/long", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content_provider(html.size(), "text/html",
                             [&](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                               return sink.write(html.data() + offset, length);
                             });
  });
  ASSERT_TRUE(server.Start());

  ToolRun first = FetchAllowed({{"url", server.Url("/long")}});
  ASSERT_EQ(first.json["truncated"], true) << first.out.substr(0, 300);
  EXPECT_EQ(first.json["total_length"], expected.size());
  EXPECT_LT(first.out.size(), 64u * 1024);
  const std::string piece1 = Text(first.json["content"]);
  const std::size_t next = first.json["next_offset"].get<std::size_t>();
  EXPECT_EQ(next, piece1.size());
  EXPECT_EQ(piece1, expected.substr(0, piece1.size()));
  EXPECT_EQ(piece1.back(), '\n');  // cut at a line boundary

  ToolRun second = FetchAllowed({{"url", server.Url("/long")}, {"offset", next}});
  const std::string piece2 = Text(second.json["content"]);
  ASSERT_FALSE(piece2.empty());
  EXPECT_EQ(piece2, expected.substr(next, piece2.size()));
  EXPECT_EQ(second.json["next_offset"], next + piece2.size());

  // The last piece: not truncated, no next_offset.
  ToolRun last = FetchAllowed({{"url", server.Url("/long")}, {"offset", expected.size() - 100}});
  EXPECT_EQ(last.json["truncated"], false);
  EXPECT_FALSE(last.json.contains("next_offset"));
  EXPECT_EQ(last.json["content"], expected.substr(expected.size() - 100));

  ToolRun past = FetchAllowed({{"url", server.Url("/long")}, {"offset", expected.size() + 1}});
  EXPECT_EQ(past.json["error_code"], "INVALID_ARG");
}

TEST(WebFetchTool, PastTenMegabytesReadingStopsAndTheAnswerSaysSo) {
  const std::string line = std::string(99, 'a') + "\n";
  const std::size_t size = 10 * 1024 * 1024 + 500 * 1000;
  LocalHttpServer server;
  server.server.Get("/huge.txt", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content_provider(size, "text/plain",
                             [&](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                               std::string chunk;
                               for (std::size_t i = offset; i < offset + length; ++i) {
                                 chunk.push_back(line[i % line.size()]);
                               }
                               return sink.write(chunk.data(), chunk.size());
                             });
  });
  ASSERT_TRUE(server.Start());
  ToolRun run = FetchAllowed({{"url", server.Url("/huge.txt")}});
  EXPECT_EQ(run.json["total_length"], 10 * 1024 * 1024) << run.out.substr(0, 300);
  EXPECT_EQ(run.json["truncated"], true);
  EXPECT_NE(Text(run.json["note"]).find("only its beginning"), std::string::npos);
}

TEST(WebFetchTool, HttpErrorsCarryTheStatusAndAnExcerpt) {
  LocalHttpServer server;
  server.server.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("<html><body><h1>Not Found</h1><p>No such page.</p></body></html>",
                    "text/html");
  });
  ASSERT_TRUE(server.Start());
  ToolRun run = FetchAllowed({{"url", server.Url("/missing")}});
  EXPECT_EQ(run.json["error_code"], "HTTP_ERROR") << run.out;
  EXPECT_EQ(run.json["status"], 404);
  EXPECT_NE(Text(run.json["error"]).find("404"), std::string::npos);
  EXPECT_EQ(run.json["excerpt"], "# Not Found\n\nNo such page.\n");
}

TEST(WebFetchTool, ASlowServerHitsTheTimeLimit) {
  LocalHttpServer server;
  server.server.Get("/slow", [&](const httplib::Request&, httplib::Response& res) {
    server.Hold();  // answers only when the test ends
    res.set_content("too late", "text/plain");
  });
  ASSERT_TRUE(server.Start());
  ToolRun run = Fetch({{"url", server.Url("/slow")}},
                      {.env = {kAllowPrivate, {"IKIGAI_TOOL_DEADLINE_MS", "1500"}}});
  EXPECT_EQ(run.json["error_code"], "TIMEOUT") << run.out;
  EXPECT_NE(Text(run.json["error"]).find("time limit"), std::string::npos);
  server.Release();
}

TEST(WebFetchTool, LegacyCharsetsBecomeUtf8) {
  LocalHttpServer server;
  server.server.Get("/latin1", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<p>Caf\xE9 cr\xE8me \x93quoted\x94</p>", "text/html; charset=ISO-8859-1");
  });
  server.server.Get("/meta", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(
        "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; "
        "charset=Shift_JIS\"><title>\x93\xfa\x96\x7b</title></head>"
        "<body><p>\x93\xfa\x96\x7b\x8c\xea</p></body></html>",
        "text/html");
  });
  server.server.Get("/text", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("na\xEFve\n", "text/plain; charset=windows-1252");
  });
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(FetchAllowed({{"url", server.Url("/latin1")}}).json["content"],
            "Café crème “quoted”\n");
  ToolRun meta = FetchAllowed({{"url", server.Url("/meta")}});
  EXPECT_EQ(meta.json["content"], "日本語\n");
  EXPECT_EQ(meta.json["title"], "日本");
  EXPECT_EQ(FetchAllowed({{"url", server.Url("/text")}}).json["content"], "naïve\n");
}

TEST(WebFetchTool, BinaryContentIsDescribedNotShown) {
  LocalHttpServer server;
  std::string png("\x89PNG\r\n\x1a\n", 8);
  png += std::string(5000, '\0');
  server.server.Get("/logo.png", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(png, "image/png");
  });
  ASSERT_TRUE(server.Start());
  ToolRun run = FetchAllowed({{"url", server.Url("/logo.png")}});
  EXPECT_EQ(run.json["content_type"], "image/png");
  const std::string content = Text(run.json["content"]);
  EXPECT_NE(content.find("image/png"), std::string::npos) << content;
  EXPECT_NE(content.find("5008 bytes"), std::string::npos) << content;
  EXPECT_EQ(content.find("PNG"), std::string::npos);
}

TEST(WebFetchTool, BadUrlsAreInvalidArg) {
  for (const char* url : {"not a url", "example.com", "ftp://example.com/file",
                          "file:///etc/passwd", "http://", "data:text/plain,hi"}) {
    ToolRun run = Fetch({{"url", url}});
    EXPECT_EQ(run.json["error_code"], "INVALID_ARG") << url << ": " << run.out;
  }
  EXPECT_EQ(Fetch({{"url", 42}}).json["error_code"], "INVALID_ARG");
  EXPECT_EQ(Fetch(Json::object()).json["error_code"], "INVALID_ARG");
  EXPECT_EQ(Fetch({{"url", "https://example.com/"}, {"offset", -1}}).json["error_code"],
            "INVALID_ARG");
}

}  // namespace
}  // namespace ikigai::testing
