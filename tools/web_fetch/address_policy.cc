#include "web_fetch/address_policy.h"

#include <arpa/inet.h>

#include <cstdint>
#include <cstring>

namespace ikigai::web_fetch {
namespace {

struct V4Range {
  std::uint32_t base;
  int prefix;
  const char* kind;
};

constexpr std::uint32_t Ip(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

constexpr V4Range kV4Ranges[] = {
    {Ip(0, 0, 0, 0), 8, "\"this network\" (0.0.0.0/8)"},
    {Ip(10, 0, 0, 0), 8, "private network (10.0.0.0/8)"},
    {Ip(100, 64, 0, 0), 10, "carrier-grade NAT (100.64.0.0/10)"},
    {Ip(127, 0, 0, 0), 8, "loopback (127.0.0.0/8)"},
    {Ip(169, 254, 0, 0), 16, "link-local, where cloud metadata services answer (169.254.0.0/16)"},
    {Ip(172, 16, 0, 0), 12, "private network (172.16.0.0/12)"},
    {Ip(192, 0, 0, 0), 24, "IETF protocol assignments (192.0.0.0/24)"},
    {Ip(192, 0, 2, 0), 24, "documentation (192.0.2.0/24)"},
    {Ip(192, 168, 0, 0), 16, "private network (192.168.0.0/16)"},
    {Ip(198, 18, 0, 0), 15, "benchmarking (198.18.0.0/15)"},
    {Ip(198, 51, 100, 0), 24, "documentation (198.51.100.0/24)"},
    {Ip(203, 0, 113, 0), 24, "documentation (203.0.113.0/24)"},
    {Ip(224, 0, 0, 0), 4, "multicast (224.0.0.0/4)"},
    {Ip(240, 0, 0, 0), 4, "reserved (240.0.0.0/4)"},
};

bool InPrefix(const std::uint8_t* bytes, const std::uint8_t* base, int prefix) {
  const int whole = prefix / 8;
  if (std::memcmp(bytes, base, static_cast<std::size_t>(whole)) != 0) return false;
  const int rest = prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
  return (bytes[whole] & mask) == (base[whole] & mask);
}

struct V6Range {
  std::uint8_t base[16];
  int prefix;
  const char* kind;
};

const V6Range kV6Ranges[] = {
    {{0xfc}, 7, "unique local, a private network (fc00::/7)"},
    {{0xfe, 0x80}, 10, "link-local (fe80::/10)"},
    {{0xfe, 0xc0}, 10, "site-local (fec0::/10)"},
    {{0xff}, 8, "multicast (ff00::/8)"},
    {{0x20, 0x01, 0x0d, 0xb8}, 32, "documentation (2001:db8::/32)"},
};

}  // namespace

std::optional<std::string> NonPublicKind(const in_addr& v4) {
  const std::uint32_t ip = ntohl(v4.s_addr);
  for (const V4Range& range : kV4Ranges) {
    const std::uint32_t mask = range.prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - range.prefix);
    if ((ip & mask) == range.base) return std::string(range.kind);
  }
  return std::nullopt;
}

std::optional<std::string> NonPublicKind(const in6_addr& v6) {
  const std::uint8_t* b = v6.s6_addr;
  static const std::uint8_t kZero[16] = {};
  if (std::memcmp(b, kZero, 15) == 0 && (b[15] == 0 || b[15] == 1)) {
    return std::string(b[15] == 1 ? "loopback (::1)" : "unspecified (::)");
  }
  // IPv4 inside IPv6: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d) and
  // NAT64 (64:ff9b::a.b.c.d) reach the IPv4 address: judge that.
  static const std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static const std::uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b};
  if (std::memcmp(b, kMapped, 12) == 0 || std::memcmp(b, kZero, 12) == 0 ||
      std::memcmp(b, kNat64, 12) == 0) {
    in_addr v4{};
    std::memcpy(&v4.s_addr, b + 12, 4);
    if (auto kind = NonPublicKind(v4)) return "IPv4 " + *kind + " inside IPv6";
    return std::nullopt;
  }
  for (const V6Range& range : kV6Ranges) {
    if (InPrefix(b, range.base, range.prefix)) return std::string(range.kind);
  }
  return std::nullopt;
}

std::optional<std::string> NonPublicKind(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    return NonPublicKind(reinterpret_cast<const sockaddr_in*>(address)->sin_addr);
  }
  if (address->sa_family == AF_INET6) {
    return NonPublicKind(reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr);
  }
  return std::string("not an internet address");
}

}  // namespace ikigai::web_fetch
