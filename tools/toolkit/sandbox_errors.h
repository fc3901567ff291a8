// What a tool says when ikigai's sandbox refused something (DECISIONS §6).
//
// The host describes the sandbox in IKIGAI_SANDBOX (JSON: tier, access,
// writable_roots, network, protected). A refused write fails with EACCES,
// EPERM or EROFS: the file tools answer SANDBOX_DENIED naming the writable
// roots, and the bash tool adds a one-line hint when a failed command's
// output shows a refusal. Both tell the model not to work around the block.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolkit/tool_error.h"

namespace ikigai::toolkit {

struct SandboxInfo {
  std::vector<std::string> writable_roots;
  bool network = false;
};

// Parsed from IKIGAI_SANDBOX; nullopt when the tool is not sandboxed.
std::optional<SandboxInfo> CurrentSandbox();

// SANDBOX_DENIED for a write to `path` that failed with `err`, when the tool
// is sandboxed and `err` is what the sandbox answers.
std::optional<ToolError> SandboxDenied(int err, std::string_view path);

// The bash tool's one-line hint for a failed command, or "".
std::string SandboxHint(std::string_view output, int exit_code);

}  // namespace ikigai::toolkit
