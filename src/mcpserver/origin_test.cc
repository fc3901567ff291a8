#include "mcpserver/origin.h"

#include <gtest/gtest.h>

namespace ikigai::mcpserver {
namespace {

TEST(Origin, LoopbackHosts) {
  for (const char* host : {"localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host :
       {"evil.example.com", "127.0.0.1.evil.com", "10.0.0.1", "", "localhost2"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

TEST(Origin, HostPartOfOriginsAndHostHeaders) {
  EXPECT_EQ(HostPart("http://localhost:3000", true), "localhost");
  EXPECT_EQ(HostPart("https://Evil.Example.com", true), "evil.example.com");
  EXPECT_EQ(HostPart("http://[::1]:8080", true), "[::1]");
  EXPECT_EQ(HostPart("null", true), "");
  EXPECT_EQ(HostPart("127.0.0.1:8080", false), "127.0.0.1");
  EXPECT_EQ(HostPart("[::1]:80", false), "[::1]");
}

TEST(Origin, AbsentOriginAndLoopbackOriginsAreAllowed) {
  EXPECT_TRUE(AllowedOrigin("", "", "127.0.0.1"));
  EXPECT_TRUE(AllowedOrigin("", "127.0.0.1:9000", "127.0.0.1"));
  EXPECT_TRUE(AllowedOrigin("http://localhost:5173", "localhost:9000", "127.0.0.1"));
}

TEST(Origin, OtherOriginsAndHostsAreRefused) {
  EXPECT_FALSE(AllowedOrigin("http://evil.example.com", "evil.example.com", "127.0.0.1"));
  EXPECT_FALSE(AllowedOrigin("http://evil.example.com", "127.0.0.1:9000", "127.0.0.1"));
  // DNS rebinding: the page's name resolves to 127.0.0.1, the browser says so in Host.
  EXPECT_FALSE(AllowedOrigin("", "evil.example.com:9000", "127.0.0.1"));
  EXPECT_FALSE(AllowedOrigin("null", "", "127.0.0.1"));
}

TEST(Origin, BoundBeyondLoopbackTheBoundHostIsAllowedAndHostIsNotChecked) {
  EXPECT_TRUE(AllowedOrigin("http://10.0.0.5:3000", "10.0.0.5:9000", "10.0.0.5"));
  EXPECT_TRUE(AllowedOrigin("", "myhost.lan:9000", "0.0.0.0"));
  EXPECT_FALSE(AllowedOrigin("http://evil.example.com", "10.0.0.5:9000", "10.0.0.5"));
}

}  // namespace
}  // namespace ikigai::mcpserver
