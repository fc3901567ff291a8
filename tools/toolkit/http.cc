#include "toolkit/http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>

#include <algorithm>
#include <memory>
#include <mutex>

namespace ikigai::toolkit::http {
namespace {

struct Transfer {
  const Request* request;
  std::string body;
  bool cut = false;
  std::optional<std::string> blocked_address;
  std::string blocked_reason;
};

std::size_t OnBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  const std::size_t room = transfer->request->max_body_bytes - transfer->body.size();
  if (n > room) {
    transfer->body.append(data, room);
    transfer->cut = true;
    return 0;  // stops the transfer (CURLE_WRITE_ERROR, recognized below)
  }
  transfer->body.append(data, n);
  return n;
}

// Every connection libcurl makes goes through here, with the address it is
// about to connect to: the place to refuse one.
curl_socket_t OnOpenSocket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* transfer = static_cast<Transfer*>(user);
  if (transfer->request->vet_address) {
    if (auto why = transfer->request->vet_address(&address->addr)) {
      if (!transfer->blocked_address) {
        transfer->blocked_address = AddressText(&address->addr);
        transfer->blocked_reason = *why;
      }
      return CURL_SOCKET_BAD;
    }
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

FailureKind KindOf(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return FailureKind::kTimeout;
    case CURLE_COULDNT_RESOLVE_HOST:
      return FailureKind::kResolve;
    case CURLE_COULDNT_CONNECT:
      return FailureKind::kConnect;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
      return FailureKind::kTls;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return FailureKind::kBadUrl;
    default:
      return FailureKind::kOther;
  }
}

struct EasyDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

}  // namespace

std::string AddressText(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
              sizeof text);
  } else {
    return "(address family " + std::to_string(address->sa_family) + ")";
  }
  return text;
}

Result<Response, Failure> Perform(const Request& request) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });

  long timeout_ms = 0;  // 0: no limit
  if (request.deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        *request.deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Err(Failure{FailureKind::kTimeout, "no time left", "", ""});
    timeout_ms = static_cast<long>(left.count());
  }

  std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
  if (!curl) return Err(Failure{FailureKind::kOther, "libcurl could not start", "", ""});
  CURL* h = curl.get();
  Transfer transfer{&request, {}, false, std::nullopt, {}};
  std::unique_ptr<curl_slist, ListDeleter> headers;
  for (const std::string& header : request.headers) {
    headers.reset(curl_slist_append(headers.release(), header.c_str()));
  }

  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PROXY, "");  // a proxy would hide the real address
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl decodes
  curl_easy_setopt(h, CURLOPT_USERAGENT, "ikigai/0.1 (+web_fetch)");
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, OnOpenSocket);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &transfer);
  if (headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  if (request.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  } else if (request.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  char error_text[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_text);

  const CURLcode code = curl_easy_perform(h);
  const bool cut_on_purpose = code == CURLE_WRITE_ERROR && transfer.cut;
  if (code != CURLE_OK && !cut_on_purpose) {
    if (transfer.blocked_address && code == CURLE_COULDNT_CONNECT) {
      return Err(Failure{FailureKind::kBlockedAddress, "connection refused by policy",
                         *transfer.blocked_address, transfer.blocked_reason});
    }
    std::string message = error_text[0] != '\0' ? error_text : curl_easy_strerror(code);
    return Err(Failure{KindOf(code), std::move(message), "", ""});
  }

  Response response;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  const char* text = nullptr;
  if (curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &text) == CURLE_OK && text) {
    response.content_type = text;
  }
  text = nullptr;
  // With redirects off, libcurl still resolves a Location against the URL.
  if (curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &text) == CURLE_OK && text) {
    response.location = text;
  }
  text = nullptr;
  if (curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, &text) == CURLE_OK && text) {
    response.address = text;
  }
  response.body = std::move(transfer.body);
  response.body_cut = transfer.cut;
  return response;
}

}  // namespace ikigai::toolkit::http
