// Which addresses web_fetch may connect to.
//
// A model can be talked into fetching anything (a prompt injection in a page
// it read), so by default the tool refuses addresses that reach the user's
// own machine or networks rather than the public internet: loopback,
// private ranges, link-local (where cloud metadata services answer),
// carrier-grade NAT, and the reserved, documentation and multicast ranges,
// for IPv6 too, including IPv4 addresses wrapped in IPv6 forms.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <optional>
#include <string>

namespace ikigai::web_fetch {

// What kind of non-public address this is ("loopback", "private network"...),
// or nullopt for a public one.
std::optional<std::string> NonPublicKind(const sockaddr* address);
std::optional<std::string> NonPublicKind(const in_addr& v4);
std::optional<std::string> NonPublicKind(const in6_addr& v6);

}  // namespace ikigai::web_fetch
