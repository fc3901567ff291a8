#include "toolkit/sandbox_errors.h"

#include <cerrno>
#include <cstdlib>

#include "toolkit/error_codes.h"
#include "toolkit/json.h"

namespace ikigai::toolkit {
namespace {

std::string Roots(const SandboxInfo& info) {
  std::string roots;
  for (const auto& r : info.writable_roots) roots += (roots.empty() ? "" : ", ") + r;
  return roots.empty() ? "only the temp directory" : roots;
}

constexpr std::string_view kDoNotWorkAround =
    "Do not try to work around the sandbox; ask the user if this is needed (they can widen it "
    "with sandbox.writable_roots or sandbox.network, or run with --permissions unrestricted).";

}  // namespace

std::optional<SandboxInfo> CurrentSandbox() {
  const char* text = std::getenv("IKIGAI_SANDBOX");
  if (text == nullptr || *text == '\0') return std::nullopt;
  SandboxInfo info;
  const Json j = Json::parse(text, nullptr, false);
  if (j.is_object()) {
    if (auto it = j.find("writable_roots"); it != j.end() && it->is_array()) {
      for (const auto& r : *it) {
        if (r.is_string()) info.writable_roots.push_back(r.get<std::string>());
      }
    }
    if (auto it = j.find("network"); it != j.end() && it->is_boolean()) info.network = *it;
  }
  return info;
}

std::optional<ToolError> SandboxDenied(int err, std::string_view path) {
  if (err != EACCES && err != EPERM && err != EROFS) return std::nullopt;
  const auto info = CurrentSandbox();
  if (!info) return std::nullopt;
  const std::string p(path);
  return ToolError{code::kSandboxDenied,
                   "The sandbox refused writing " + p + ": tools may write only in " +
                       Roots(*info) +
                       " (and protected paths such as .git/hooks, .git/config and .ikigai stay "
                       "read-only). " +
                       std::string(kDoNotWorkAround),
                   {{"path", p}, {"writable_roots", info->writable_roots}}};
}

std::string SandboxHint(std::string_view output, int exit_code) {
  if (exit_code == 0) return {};
  const auto info = CurrentSandbox();
  if (!info) return {};
  auto has = [&](std::string_view s) { return output.find(s) != std::string_view::npos; };
  const bool file =
      has("Permission denied") || has("Read-only file system") || has("Operation not permitted");
  const bool net =
      !info->network && (has("Network is unreachable") || has("Could not resolve host") ||
                         has("Temporary failure in name resolution") || has("Connection refused") ||
                         has("Name or service not known") || has("Address family not supported"));
  if (!file && !net) return {};
  std::string hint = "The sandbox may have blocked this: writable are " + Roots(*info);
  hint += info->network ? "" : "; the network is off";
  return hint + ". " + std::string(kDoNotWorkAround);
}

}  // namespace ikigai::toolkit
