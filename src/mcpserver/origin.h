// Against DNS rebinding: a web page the user visits may make the browser
// send requests to a server on loopback under the page's own host name. The
// browser says where the page came from (Origin) and which host it thinks
// it talks to (Host); both must name this machine, or the host the server
// was explicitly bound to (Host is then not checked: other machines reach
// it by other names).
#pragma once

#include <string>
#include <string_view>

namespace ikigai::mcpserver {

// "localhost", "127.0.0.1", "127.x.y.z", "::1" / "[::1]" (any case).
bool IsLoopbackHost(std::string_view host);

// The host part of an Origin ("http://localhost:3000" -> "localhost") or a
// Host header ("127.0.0.1:8080" -> "127.0.0.1", "[::1]:80" -> "[::1]").
std::string HostPart(std::string_view value, bool is_origin);

// Whether a request with these headers (empty: absent) may be served by a
// server bound to `bound_host`. An absent Origin is a client that is not a
// browser (Claude Code, the SDKs, curl): allowed.
bool AllowedOrigin(std::string_view origin, std::string_view host_header,
                   std::string_view bound_host);

}  // namespace ikigai::mcpserver
