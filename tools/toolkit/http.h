// One HTTP request over libcurl, for the tools that talk to the web
// (web_fetch, web_search).
//
// Deliberately small and strict: one request per call, no automatic
// redirects (the caller follows them hop by hop, re-checking each URL), a
// cap on the body (past it, reading stops and the body is marked cut), a
// deadline, http and https only, no proxy from the environment, and an
// optional hook that sees the address of every connection before it is
// made: the address actually connected, after name resolution, so a name
// that resolves to a public address once and a private one later (DNS
// rebinding) is still caught.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace ikigai::toolkit::http {

// Returns an explanation to refuse the connection, nullopt to allow it.
using AddressVetter = std::function<std::optional<std::string>(const sockaddr* address)>;

struct Request {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers = {};  // "Name: value"
  std::string body = {};                  // sent when non-empty (POST)
  std::size_t max_body_bytes = 10 * 1024 * 1024;
  std::optional<std::chrono::steady_clock::time_point> deadline = {};
  AddressVetter vet_address = {};
};

struct Response {
  long status = 0;
  std::string content_type;  // the Content-Type header, as sent
  std::string location;      // the Location header, empty if none
  std::string body;
  bool body_cut = false;  // the body was larger than max_body_bytes
  std::string address;    // the IP address connected to
};

enum class FailureKind {
  kBlockedAddress,  // the vetter refused a connection
  kTimeout,         // the deadline passed
  kResolve,         // the host name did not resolve
  kConnect,         // no connection (refused, unreachable)
  kTls,             // certificate or handshake failure
  kBadUrl,          // libcurl could not use the URL
  kOther,
};

struct Failure {
  FailureKind kind;
  std::string message;          // libcurl's explanation
  std::string blocked_address;  // kBlockedAddress: the address refused
  std::string blocked_reason;   // kBlockedAddress: what the vetter said
};

Result<Response, Failure> Perform(const Request& request);

// The address in text form ("127.0.0.1", "::1").
std::string AddressText(const sockaddr* address);

}  // namespace ikigai::toolkit::http
