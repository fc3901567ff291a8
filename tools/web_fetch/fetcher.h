// Fetching a URL the careful way: the URL checked (http or https, well
// formed), redirects followed one at a time (at most 10, each new URL
// checked again), and the address of every connection vetted, so that
// neither the first URL nor any redirect reaches a private address unless
// the user allowed it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "toolkit/http.h"
#include "toolkit/tool_error.h"

namespace ikigai::web_fetch {

inline constexpr int kMaxRedirects = 10;
inline constexpr std::size_t kMaxDownloadBytes = 10 * 1024 * 1024;

// `url` normalized, or INVALID_ARG saying what is wrong with it.
Result<std::string, toolkit::ToolError> CheckUrl(std::string_view url);

// Refuses non-public addresses (address_policy.h) with the setting's name.
toolkit::http::AddressVetter PublicOnly();

struct FetchOptions {
  std::optional<std::chrono::steady_clock::time_point> deadline = {};
  std::size_t max_bytes = kMaxDownloadBytes;
  toolkit::http::AddressVetter vet_address = {};  // empty: every address allowed
};

struct Fetched {
  std::string final_url;
  int redirects = 0;
  toolkit::http::Response response;
};

Result<Fetched, toolkit::ToolError> Fetch(const std::string& url, const FetchOptions& options);

}  // namespace ikigai::web_fetch
