#include "toolkit/tool_main.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/io.h"
#include "toolkit/error_codes.h"

namespace ikigai::toolkit {
namespace {

int Print(const Json& answer) {
  // The replace handler is a second line of defence: tools repair UTF-8
  // themselves (so they can budget the repaired text), but an answer must
  // never fail to print because some field held invalid bytes.
  const std::string text = answer.dump(-1, ' ', false, Json::error_handler_t::replace);
  return WriteAll(STDOUT_FILENO, text) ? 0 : 1;
}

// Reads fd 0 to EOF. Past `limit` bytes, returns nullopt (the rest is drained
// so the writer does not get SIGPIPE for a protocol-level problem).
std::optional<std::string> ReadInput(std::size_t limit, int* read_errno) {
  std::string data;
  char buf[65536];
  bool too_large = false;
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      *read_errno = errno;
      return std::nullopt;
    }
    if (!too_large && data.size() + static_cast<std::size_t>(n) <= limit) {
      data.append(buf, static_cast<std::size_t>(n));
    } else {
      too_large = true;
      data.clear();
    }
  }
  if (too_large) return std::nullopt;
  return data;
}

}  // namespace

std::optional<Clock::time_point> DeadlineFromEnvironment(Clock::time_point start) {
  const char* text = std::getenv("IKIGAI_TOOL_DEADLINE_MS");
  if (text == nullptr) return std::nullopt;
  long long ms = 0;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, ms);
  if (ec != std::errc() || ptr != end || ms <= 0) return std::nullopt;
  return start + std::chrono::milliseconds(ms);
}

int RunTool(int argc, char** argv, const ToolDefinition& tool) {
  const CallContext context{Clock::now(), DeadlineFromEnvironment(Clock::now())};
  const Json schema = Json::parse(tool.schema, nullptr, false);
  if (schema.is_discarded()) {
    std::fputs("tool bug: the built-in schema is not valid JSON\n", stderr);
    std::abort();
  }
  if (argc > 1 && std::strcmp(argv[1], "--schema") == 0) return Print(schema);
  if (argc > 1) {
    std::fprintf(stderr,
                 "usage: %s --schema | %s < arguments.json\n"
                 "An ikigai tool: it reads one JSON object of arguments on stdin.\n",
                 argv[0], argv[0]);
    return 2;
  }

  int read_errno = 0;
  std::optional<std::string> input = ReadInput(kMaxInputBytes, &read_errno);
  if (!input) {
    const std::string why =
        read_errno != 0 ? std::string("Could not read stdin: ") + std::strerror(read_errno) + "."
                        : "Input is larger than 16 MB; send smaller arguments.";
    return Print(ToolError{code::kInvalidArg, why}.ToJson());
  }
  auto args = Args::Parse(*input, schema.at("parameters"));
  if (!args) return Print(args.error().ToJson());
  return Print(tool.run(*args, context));
}

}  // namespace ikigai::toolkit

#if defined(__SANITIZE_ADDRESS__)
// LeakSanitizer stops the process's threads with ptrace, which ikigai's
// sandbox refuses, and then fails the process at exit. Confined (the host
// sets IKIGAI_SANDBOX), a sanitizer build of a tool skips the leak check;
// run by hand or by its own tests, unconfined, it keeps it.
extern "C" int __lsan_is_turned_off() { return std::getenv("IKIGAI_SANDBOX") != nullptr; }
#endif
