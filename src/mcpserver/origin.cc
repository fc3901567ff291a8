#include "mcpserver/origin.h"

#include <algorithm>
#include <cctype>

#include "base/format.h"

namespace ikigai::mcpserver {

bool IsLoopbackHost(std::string_view raw) {
  const std::string host = AsciiLower(raw);
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  if (!host.starts_with("127.")) return false;
  return std::all_of(host.begin(), host.end(),
                     [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

std::string HostPart(std::string_view value, bool is_origin) {
  if (is_origin) {
    const std::size_t scheme = value.find("://");
    if (scheme == std::string_view::npos) return "";
    value.remove_prefix(scheme + 3);
    value = value.substr(0, value.find('/'));
  }
  if (value.starts_with("[")) {
    const std::size_t end = value.find(']');
    return end == std::string_view::npos ? "" : AsciiLower(value.substr(0, end + 1));
  }
  return AsciiLower(value.substr(0, value.find(':')));
}

bool AllowedOrigin(std::string_view origin, std::string_view host_header,
                   std::string_view bound_host) {
  const auto allowed = [&](const std::string& host) {
    return IsLoopbackHost(host) || (!bound_host.empty() && host == AsciiLower(bound_host));
  };
  if (!origin.empty() && !allowed(HostPart(origin, true))) return false;
  // Bound beyond loopback on purpose, the machine is reached by other names.
  if (!host_header.empty() && IsLoopbackHost(bound_host) &&
      !allowed(HostPart(host_header, false))) {
    return false;
  }
  return true;
}

}  // namespace ikigai::mcpserver
