// One-shot mode: `ikigai -p "prompt"`.
//
// The answer streams to stdout as it arrives; tool calls show their progress
// on stderr, one line when they start and one when they end. With
// `--output json`, stdout gets one JSON object at the end instead: the final
// text, every tool call with its arguments and wrapped result, the usage;
// on any failure an object with "error", "error_code" and, once a session
// exists, "session" (PrintJsonFailure).
// Exit status: 0 when the model answered; 1 when the provider failed (the
// reason on stderr), the round limit stopped the prompt or a
// UserPromptSubmit hook refused it (hooks/hooks.h); 128 + the signal
// when SIGINT (Ctrl+C, 130), SIGTERM or SIGHUP stopped the turn (the stream
// closed, the running tools killed).
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "session/agent_setup.h"
#include "session/host_context.h"

namespace ikigai::oneshot {

// The "error_code" of a failed -p --output json, named once.
namespace failure_code {
inline constexpr std::string_view kUsage = "USAGE";                      // a bad command line
inline constexpr std::string_view kInvalidArg = "INVALID_ARG";           // an empty prompt
inline constexpr std::string_view kConfigError = "CONFIG_ERROR";         // configuration
inline constexpr std::string_view kResumeFailed = "RESUME_FAILED";       // --resume
inline constexpr std::string_view kAuth = "AUTH";                        // no or a refused key
inline constexpr std::string_view kRateLimited = "RATE_LIMITED";         // after the retries
inline constexpr std::string_view kServerError = "SERVER_ERROR";         // the provider failed
inline constexpr std::string_view kNetworkError = "NETWORK_ERROR";       // unreachable, cut off
inline constexpr std::string_view kProtocolError = "PROTOCOL_ERROR";     // a malformed answer
inline constexpr std::string_view kContextTooLong = "CONTEXT_TOO_LONG";  // even after compacting
inline constexpr std::string_view kCancelled = "CANCELLED";              // a signal stopped it
inline constexpr std::string_view kPromptRefused = "PROMPT_REFUSED";     // a UserPromptSubmit hook
inline constexpr std::string_view kError = "ERROR";                      // anything else
}  // namespace failure_code

struct OneShotOptions {
  std::string prompt;
  bool json_output = false;
  session::AgentFlags flags;
  std::optional<std::string> resume;  // a session id, or "" for the last one
  // A terminal gets the answer with its controls made visible; a pipe gets
  // it byte for byte (base/visible_text.h).
  bool stdout_is_terminal = false;
};

// {"error": message, "error_code": code, "session": id (if not empty)}.
void PrintJsonFailure(std::ostream& out, std::string_view code, std::string_view message,
                      const std::string& session);

int RunOneShot(const session::HostContext& host, const OneShotOptions& options, std::ostream& out,
               std::ostream& err);

}  // namespace ikigai::oneshot
