#include "web_fetch/address_policy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <string>

namespace ikigai::web_fetch {
namespace {

std::optional<std::string> Kind(const char* text) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
  } else if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
  } else {
    ADD_FAILURE() << "not an address: " << text;
  }
  return NonPublicKind(reinterpret_cast<const sockaddr*>(&storage));
}

TEST(AddressPolicy, RefusesEveryNonPublicIpv4Range) {
  for (const char* address :
       {"127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "100.64.0.1", "100.127.255.254", "0.0.0.0", "0.1.2.3", "224.0.0.1",
        "239.255.255.250", "240.0.0.1", "255.255.255.255", "192.0.2.1", "198.18.0.1"}) {
    EXPECT_TRUE(Kind(address).has_value()) << address;
  }
  EXPECT_NE(Kind("169.254.169.254")->find("metadata"), std::string::npos);
  EXPECT_NE(Kind("127.0.0.1")->find("loopback"), std::string::npos);
  EXPECT_NE(Kind("100.64.0.1")->find("carrier-grade NAT"), std::string::npos);
}

TEST(AddressPolicy, AllowsPublicIpv4IncludingRangeNeighbours) {
  for (const char* address :
       {"8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.1", "100.63.255.255",
        "100.128.0.1", "169.253.0.1", "11.0.0.1", "192.167.1.1", "223.255.255.255"}) {
    EXPECT_FALSE(Kind(address).has_value()) << address;
  }
}

TEST(AddressPolicy, RefusesNonPublicIpv6AndWrappedIpv4) {
  for (const char* address : {"::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "febf::1",
                              "ff02::1", "2001:db8::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
                              "::ffff:169.254.169.254", "::127.0.0.1", "64:ff9b::a00:1"}) {
    EXPECT_TRUE(Kind(address).has_value()) << address;
  }
  EXPECT_NE(Kind("::ffff:127.0.0.1")->find("inside IPv6"), std::string::npos);
}

TEST(AddressPolicy, AllowsPublicIpv6AndMappedPublicIpv4) {
  for (const char* address :
       {"2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808"}) {
    EXPECT_FALSE(Kind(address).has_value()) << address;
  }
}

}  // namespace
}  // namespace ikigai::web_fetch
