// The fetch against a real server on loopback, in process, with address
// vetters that allow one port and not another: this is how a redirect from
// an allowed server to a refused address is shown to be checked hop by hop
// (the tool itself can only allow or refuse all of loopback).
#include "web_fetch/fetcher.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <atomic>

#include "testing/local_http_server.h"

namespace ikigai::web_fetch {
namespace {

using testing::LocalHttpServer;

// Allows connections to 127.0.0.1 on `port` only.
toolkit::http::AddressVetter OnlyPort(int port) {
  return [port](const sockaddr* address) -> std::optional<std::string> {
    if (address->sa_family == AF_INET &&
        ntohs(reinterpret_cast<const sockaddr_in*>(address)->sin_port) == port) {
      return std::nullopt;
    }
    return "not the test's allowed port";
  };
}

TEST(Fetcher, RedirectToARefusedAddressIsBlockedAtThatHop) {
  LocalHttpServer allowed, refused;
  std::atomic<int> refused_hits{0};
  refused.server.Get("/secret", [&](const httplib::Request&, httplib::Response& res) {
    ++refused_hits;
    res.set_content("secret", "text/plain");
  });
  ASSERT_TRUE(refused.Start());
  allowed.server.Get("/start", [&](const httplib::Request&, httplib::Response& res) {
    res.set_redirect(refused.Url("/secret"), 302);
  });
  ASSERT_TRUE(allowed.Start());

  auto fetched = Fetch(allowed.Url("/start"), {.vet_address = OnlyPort(allowed.port())});
  ASSERT_FALSE(fetched);
  EXPECT_EQ(fetched.error().code, "BLOCKED_ADDRESS");
  EXPECT_EQ(fetched.error().extra["url"], refused.Url("/secret"));
  EXPECT_NE(fetched.error().message.find("allow_private_networks"), std::string::npos);
  EXPECT_EQ(refused_hits, 0);

  // Allowing every address, the same chain arrives.
  auto open = Fetch(allowed.Url("/start"), {});
  ASSERT_TRUE(open) << open.error().message;
  EXPECT_EQ(open->response.body, "secret");
  EXPECT_EQ(open->final_url, refused.Url("/secret"));
  EXPECT_EQ(open->redirects, 1);
}

TEST(Fetcher, TheLocalNameResolvesToARefusedAddress) {
  LocalHttpServer server;
  server.server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("hi", "text/plain");
  });
  ASSERT_TRUE(server.Start());
  auto fetched = Fetch("http://localhost:" + std::to_string(server.port()) + "/",
                       {.vet_address = PublicOnly()});
  ASSERT_FALSE(fetched);
  EXPECT_EQ(fetched.error().code, "BLOCKED_ADDRESS");
}

TEST(Fetcher, RelativeRedirectsChainAndStopAfterTen) {
  LocalHttpServer server;
  server.server.Get(R"(/hop/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
    const int n = std::stoi(req.matches[1]);
    if (n == 0) {
      res.set_content("arrived", "text/plain");
    } else {
      res.set_redirect("/hop/" + std::to_string(n - 1), n % 2 ? 301 : 307);
    }
  });
  ASSERT_TRUE(server.Start());
  auto ten = Fetch(server.Url("/hop/10"), {});
  ASSERT_TRUE(ten) << ten.error().message;
  EXPECT_EQ(ten->response.body, "arrived");
  EXPECT_EQ(ten->redirects, 10);
  EXPECT_EQ(ten->final_url, server.Url("/hop/0"));

  auto eleven = Fetch(server.Url("/hop/11"), {});
  ASSERT_FALSE(eleven);
  EXPECT_EQ(eleven.error().code, "TOO_MANY_REDIRECTS");
}

TEST(Fetcher, RedirectToAnotherSchemeIsRefused) {
  LocalHttpServer server;
  server.server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.status = 302;
    res.set_header("Location", "file:///etc/passwd");
  });
  ASSERT_TRUE(server.Start());
  auto fetched = Fetch(server.Url("/"), {});
  ASSERT_FALSE(fetched);
  EXPECT_EQ(fetched.error().code, "BAD_REDIRECT");
}

TEST(Fetcher, ABodyPastTheCapIsCutNotFailed) {
  LocalHttpServer server;
  server.server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(100000, 'x'), "text/plain");
  });
  ASSERT_TRUE(server.Start());
  auto fetched = Fetch(server.Url("/big"), {.max_bytes = 1000});
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_TRUE(fetched->response.body_cut);
  EXPECT_EQ(fetched->response.body, std::string(1000, 'x'));
  EXPECT_EQ(fetched->response.status, 200);
}

TEST(Fetcher, CheckUrlRefusesWhatIsNotAWebUrl) {
  for (const char* bad : {"", "example.com/page", "not a url", "ftp://example.com/x",
                          "file:///etc/passwd", "javascript:alert(1)", "http://", "http://:80/"}) {
    auto checked = CheckUrl(bad);
    ASSERT_FALSE(checked) << bad;
    EXPECT_EQ(checked.error().code, "INVALID_ARG") << bad;
  }
  EXPECT_EQ(*CheckUrl("HTTPS://Example.com"), "https://Example.com/");
}

}  // namespace
}  // namespace ikigai::web_fetch
