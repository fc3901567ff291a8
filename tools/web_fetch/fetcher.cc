#include "web_fetch/fetcher.h"

#include <curl/curl.h>

#include <memory>

#include "base/format.h"
#include "toolkit/error_codes.h"
#include "web_fetch/address_policy.h"

namespace ikigai::web_fetch {
namespace {

using toolkit::ToolError;
using toolkit::http::Failure;
using toolkit::http::FailureKind;
namespace code = toolkit::code;

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};

std::string Part(CURLU* u, CURLUPart part) {
  char* text = nullptr;
  if (curl_url_get(u, part, &text, 0) != CURLUE_OK || text == nullptr) return {};
  std::string out(text);
  curl_free(text);
  return out;
}

ToolError FailureError(const Failure& failure, const std::string& url) {
  switch (failure.kind) {
    case FailureKind::kBlockedAddress:
      return {code::kBlockedAddress,
              "Refused to connect to " + failure.blocked_address + " (" + failure.blocked_reason +
                  ") for " + url +
                  ": web_fetch does not reach loopback, private or link-local networks unless "
                  "allowed. If this is meant (a local dev server, an intranet page), set "
                  "\"web_fetch\": {\"allow_private_networks\": true} in ~/.ikigai/config.json "
                  "or in the project's .ikigai/config.json.",
              {{"url", url}, {"address", failure.blocked_address}}};
    case FailureKind::kTimeout:
      return {code::kTimeout,
              "No complete answer from " + url +
                  " within the tool's time limit. The server is slow or unreachable; try again "
                  "later or use another source.",
              {{"url", url}}};
    case FailureKind::kResolve:
      return {code::kFetchFailed,
              "Could not resolve the host of " + url + " (" + failure.message +
                  "). Check the URL's spelling; without network access no host resolves.",
              {{"url", url}}};
    case FailureKind::kConnect:
      return {code::kFetchFailed,
              "Could not connect to " + url + " (" + failure.message +
                  "). The server may be down, or the network unavailable.",
              {{"url", url}}};
    case FailureKind::kTls:
      return {code::kFetchFailed,
              "TLS failure with " + url + " (" + failure.message +
                  "): the certificate or the encryption was refused. Nothing was fetched.",
              {{"url", url}}};
    case FailureKind::kBadUrl:
      return {
          code::kInvalidArg, "Cannot fetch " + url + " (" + failure.message + ").", {{"url", url}}};
    case FailureKind::kOther:
      break;
  }
  return {
      code::kFetchFailed, "Fetching " + url + " failed: " + failure.message + ".", {{"url", url}}};
}

bool IsRedirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

}  // namespace

Result<std::string, ToolError> CheckUrl(std::string_view url) {
  const std::string text(url);
  std::unique_ptr<CURLU, UrlDeleter> u(curl_url());
  if (!u) return Err(ToolError{code::kOutOfMemory, "Out of memory parsing the URL."});
  const CURLUcode parsed =
      curl_url_set(u.get(), CURLUPART_URL, text.c_str(), CURLU_NON_SUPPORT_SCHEME);
  if (parsed != CURLUE_OK) {
    return Err(
        ToolError{code::kInvalidArg,
                  "Parameter 'url' is not a valid absolute URL: '" + text + "' (" +
                      curl_url_strerror(parsed) +
                      "). Give a full http:// or https:// URL, like https://example.com/page.",
                  {{"url", text}}});
  }
  const std::string scheme = AsciiLower(Part(u.get(), CURLUPART_SCHEME));
  if (scheme != "http" && scheme != "https") {
    return Err(ToolError{code::kInvalidArg,
                         "Parameter 'url' must be an http:// or https:// URL; '" + text + "' is " +
                             scheme +
                             ":. web_fetch reads web pages only (use file_read "
                             "for local files).",
                         {{"url", text}}});
  }
  if (Part(u.get(), CURLUPART_HOST).empty()) {
    return Err(ToolError{
        code::kInvalidArg, "Parameter 'url' has no host: '" + text + "'.", {{"url", text}}});
  }
  return Part(u.get(), CURLUPART_URL);
}

toolkit::http::AddressVetter PublicOnly() {
  return [](const sockaddr* address) { return NonPublicKind(address); };
}

Result<Fetched, ToolError> Fetch(const std::string& url, const FetchOptions& options) {
  auto checked = CheckUrl(url);
  if (!checked) return Err(checked.error());
  Fetched fetched;
  fetched.final_url = *checked;
  for (;;) {
    toolkit::http::Request request;
    request.url = fetched.final_url;
    request.headers = {
        "Accept: text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,"
        "*/*;q=0.5"};
    request.max_body_bytes = options.max_bytes;
    request.deadline = options.deadline;
    request.vet_address = options.vet_address;
    auto response = toolkit::http::Perform(request);
    if (!response) return Err(FailureError(response.error(), fetched.final_url));
    if (!IsRedirect(response->status) || response->location.empty()) {
      fetched.response = std::move(*response);
      return fetched;
    }
    if (fetched.redirects == kMaxRedirects) {
      return Err(ToolError{code::kTooManyRedirects,
                           "Stopped after " + std::to_string(kMaxRedirects) +
                               " redirects, starting from " + url + " (the last one pointed to " +
                               response->location +
                               "). The site redirects in a loop or too far; try the last URL "
                               "directly if it looks right.",
                           {{"url", url}, {"last_url", response->location}}});
    }
    auto next = CheckUrl(response->location);
    if (!next) {
      return Err(ToolError{code::kBadRedirect,
                           fetched.final_url + " redirected to '" + response->location +
                               "', which web_fetch does not follow (http and https only).",
                           {{"url", url}, {"location", response->location}}});
    }
    fetched.final_url = *next;
    ++fetched.redirects;
  }
}

}  // namespace ikigai::web_fetch
