#include "mcpserver/http_server.h"

#include <gtest/gtest.h>

namespace ikigai::mcpserver {
namespace {

TEST(HttpAddress, APortAloneIsOnLoopback) {
  auto address = ParseHttpAddress("8080");
  ASSERT_TRUE(address) << address.error();
  EXPECT_EQ(address->host, "127.0.0.1");
  EXPECT_EQ(address->port, 8080);
}

TEST(HttpAddress, HostAndPort) {
  auto address = ParseHttpAddress("0.0.0.0:0");
  ASSERT_TRUE(address) << address.error();
  EXPECT_EQ(address->host, "0.0.0.0");
  EXPECT_EQ(address->port, 0);
  auto v6 = ParseHttpAddress("[::1]:9000");
  ASSERT_TRUE(v6) << v6.error();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 9000);
}

TEST(HttpAddress, BadAddressesSayWhatIsExpected) {
  for (const char* bad : {"", "http", "80x", "65536", "-1", ":80", "localhost:"}) {
    auto address = ParseHttpAddress(bad);
    ASSERT_FALSE(address) << bad;
    EXPECT_NE(address.error().find("--http"), std::string::npos) << address.error();
  }
}

}  // namespace
}  // namespace ikigai::mcpserver
