#include "toolkit/host_call.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "toolkit/error_codes.h"

namespace ikigai::toolkit {
namespace {

ToolError Unavailable(const std::string& why) {
  return {code::kHostUnavailable,
          why +
              ". This tool asks ikigai's host for its work: call it through ikigai (the "
              "agent, or `ikigai tool call`), whose host channel it needs."};
}

int HostFd() {
  const char* text = std::getenv("IKIGAI_HOST_FD");
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  return *end == '\0' && fd >= 0 && fd < 1024 ? static_cast<int>(fd) : -1;
}

bool SendLine(int fd, const std::string& line) {
  for (std::size_t sent = 0; sent < line.size();) {
    const ssize_t n = ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// The host's code for a question nobody can answer (hostapi::rpc_code::kNoUser).
constexpr int kNoUserRpcCode = -32003;

}  // namespace

bool NotifyHost(std::string_view method, const Json& params) {
  const int fd = HostFd();
  return fd >= 0 &&
         SendLine(fd,
                  Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump() + "\n");
}

Result<Json, ToolError> CallHost(std::string_view method, const Json& params) {
  const int fd = HostFd();
  if (fd < 0) return Err(Unavailable("No host channel (IKIGAI_HOST_FD is not set)"));
  static long next_id = 1;
  const long id = next_id++;
  if (!SendLine(
          fd, Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump() +
                  "\n")) {
    return Err(Unavailable("The host channel is closed"));
  }
  std::string buffer;
  char chunk[16384];
  for (;;) {
    for (std::size_t end; (end = buffer.find('\n')) != std::string::npos;) {
      Json answer = Json::parse(buffer.substr(0, end), nullptr, false);
      buffer.erase(0, end + 1);
      if (!answer.is_object() || answer.value("id", Json()) != Json(id)) continue;
      if (answer.contains("result")) return answer["result"];
      const Json error = answer.value("error", Json::object());
      if (error.is_object() && error.value("code", 0) == kNoUserRpcCode) {
        return Err(
            ToolError{code::kNoUser, error.value("message", std::string("nobody can answer"))});
      }
      return Err(ToolError{code::kHostError,
                           error.is_object() ? error.value("message", std::string("unknown error"))
                                             : std::string("unknown error"),
                           {{"rpc_code", error.is_object() ? error.value("code", 0) : 0}}});
    }
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Err(Unavailable("The host closed the channel before it answered"));
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace ikigai::toolkit
