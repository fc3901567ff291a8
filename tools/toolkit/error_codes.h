// Error codes a tool puts in "error_code". Named once here so that tools,
// tests and documentation cannot drift apart.
#pragma once

#include <string_view>

namespace ikigai::toolkit::code {

// seeds/000: the core tools' codes.
inline constexpr std::string_view kFileNotFound = "FILE_NOT_FOUND";
inline constexpr std::string_view kPermissionDenied = "PERMISSION_DENIED";
inline constexpr std::string_view kOpenFailed = "OPEN_FAILED";
inline constexpr std::string_view kReadFailed = "READ_FAILED";
inline constexpr std::string_view kWriteFailed = "WRITE_FAILED";
inline constexpr std::string_view kSeekFailed = "SEEK_FAILED";
inline constexpr std::string_view kSizeFailed = "SIZE_FAILED";
inline constexpr std::string_view kNoSpace = "NO_SPACE";
inline constexpr std::string_view kInvalidPattern = "INVALID_PATTERN";
inline constexpr std::string_view kOutOfMemory = "OUT_OF_MEMORY";
inline constexpr std::string_view kReadError = "READ_ERROR";
inline constexpr std::string_view kNotFound = "NOT_FOUND";
inline constexpr std::string_view kNotUnique = "NOT_UNIQUE";
inline constexpr std::string_view kInvalidArg = "INVALID_ARG";

// DECISIONS §2 and §4: additions.
inline constexpr std::string_view kBinaryFile = "BINARY_FILE";
inline constexpr std::string_view kIsDirectory = "IS_DIRECTORY";
inline constexpr std::string_view kBlocked = "BLOCKED";

// The file changed between a tool's read and its write (file_edit,
// file_write): nothing was written.
inline constexpr std::string_view kFileChanged = "FILE_CHANGED";
// Another edit of the same file held it for too long (file_edit).
inline constexpr std::string_view kFileBusy = "FILE_BUSY";
// A file larger than a tool handles whole (file_edit).
inline constexpr std::string_view kFileTooLarge = "FILE_TOO_LARGE";

// DECISIONS §6: a write the sandbox refused.
inline constexpr std::string_view kSandboxDenied = "SANDBOX_DENIED";

// DECISIONS §8, background tasks. Without a session directory
// (IKIGAI_SESSION_DIR) there is nowhere to keep a task.
inline constexpr std::string_view kNoSession = "NO_SESSION";
// The task's directory or its supervisor could not be made.
inline constexpr std::string_view kStartFailed = "START_FAILED";
// A task still marked running whose owner (the supervisor, or the host for
// a subagent) has ended without recording its end: nobody can stop it.
inline constexpr std::string_view kOwnerGone = "OWNER_GONE";
// The kill was sent but the task had not recorded its end in time.
inline constexpr std::string_view kKillPending = "KILL_PENDING";
// DECISIONS §9: the host channel (toolkit/host_call.h) is missing or
// broken, or the host refused the request.
inline constexpr std::string_view kHostUnavailable = "HOST_UNAVAILABLE";
inline constexpr std::string_view kHostError = "HOST_ERROR";
// DECISIONS §8: the subagent a task call started failed (its own code in
// "subagent_error_code": AUTH, TIMEOUT, CANCELLED...).
inline constexpr std::string_view kSubagentFailed = "SUBAGENT_FAILED";
// DECISIONS §9: a question (elicit) with nobody to answer it (-p, a
// subagent, an MCP client).
inline constexpr std::string_view kNoUser = "NO_USER";

// Issue 15: the web tools (web_fetch, web_search).
// A connection to a loopback, private or link-local address, refused.
inline constexpr std::string_view kBlockedAddress = "BLOCKED_ADDRESS";
// The server answered with an HTTP status of 400 or more ("status" has it).
inline constexpr std::string_view kHttpError = "HTTP_ERROR";
inline constexpr std::string_view kTooManyRedirects = "TOO_MANY_REDIRECTS";
// A redirect to something other than an http or https URL.
inline constexpr std::string_view kBadRedirect = "BAD_REDIRECT";
// No answer before the tool's deadline.
inline constexpr std::string_view kTimeout = "TIMEOUT";
// The name did not resolve, the connection or TLS failed.
inline constexpr std::string_view kFetchFailed = "FETCH_FAILED";
// No API key (or search service) configured, or a configuration value is wrong.
inline constexpr std::string_view kMissingCredentials = "MISSING_CREDENTIALS";
// A search service answered something that is not its API's JSON.
inline constexpr std::string_view kBadResponse = "BAD_RESPONSE";

}  // namespace ikigai::toolkit::code
