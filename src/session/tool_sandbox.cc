#include "session/tool_sandbox.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "sandbox/probe.h"
#include "sandbox/workspace.h"

namespace ikigai::session {

Result<std::shared_ptr<sandbox::Sandbox>, std::string> MakeSandbox(const config::Config& config) {
  const char* home = std::getenv("HOME");
  std::vector<std::string> roots;
  for (const std::string& root : config.sandbox.writable_roots) {
    std::string path = root;
    if (path.starts_with("~/") && home != nullptr) path = std::string(home) + path.substr(1);
    if (path.empty() || path[0] != '/') {
      return Err("sandbox.writable_roots: '" + root +
                 "' is not an absolute path (or ~/...); give the full path of the directory");
    }
    roots.push_back(std::move(path));
  }
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) {
    return Err(std::string("sandbox: the working directory is gone; cd to an existing one"));
  }
  auto settings =
      sandbox::DefaultSettings(cwd, sandbox::ProcessEnvironment(), roots, config.sandbox.network);
  if (!settings) return Err("sandbox: " + settings.error());
  auto created = sandbox::Sandbox::Create(std::move(*settings), sandbox::Probe());
  if (!created) return Err(std::move(created.error()));
  return std::shared_ptr<sandbox::Sandbox>(std::move(*created));
}

std::string ModeRefusal(const sandbox::Sandbox& sandbox, permissions::Mode mode) {
  if (mode != permissions::Mode::kAuto || sandbox.tier() > 0) return "";
  return "--permissions auto runs every call without asking, so it needs the sandbox, and this "
         "kernel has no Landlock (Linux 5.13 or later, with landlock in the lsm= boot list). Use "
         "--permissions auto-edit or ask, where you approve what runs, or unrestricted if you "
         "accept that tools run with your full rights.";
}

std::string SandboxNotice(const sandbox::Sandbox& sandbox, permissions::Mode mode) {
  if (mode == permissions::Mode::kUnrestricted) return "";
  std::string notice;
  if (sandbox.tier() == 0) {
    notice =
        "Warning: this kernel has no Landlock, so tool calls run unconfined (only "
        "no_new_privs and seccomp apply); your approvals are the only guard. See "
        "docs/security.md.";
  } else if (sandbox.tier() == 1) {
    notice = "Note: sandbox tier 1 only (" + sandbox.support().no_userns_reason +
             "): tools cannot reach host Unix sockets, and .git/hooks, "
             ".git/config and .ikigai/ are checked after each writing call instead of being "
             "kept read-only.";
  }
  for (const std::string& refused : sandbox.settings().refused) {
    notice += (notice.empty() ? "" : "\n") + ("Note: sandbox: " + refused + ".");
  }
  return notice;
}

std::vector<std::string> NoticeLines(const std::string& notice) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < notice.size();) {
    const std::size_t end = std::min(notice.find('\n', start), notice.size());
    lines.push_back(notice.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::optional<sandbox::Profile> ProfileFor(permissions::Mode mode,
                                           const permissions::CallFacts& call) {
  if (mode == permissions::Mode::kUnrestricted) return std::nullopt;
  sandbox::Profile profile;
  if (mode == permissions::Mode::kReadOnly || permissions::IsReadOnlyCall(call)) {
    profile.access = sandbox::Access::kReadOnly;
  }
  profile.network = call.open_world_hint;
  return profile;
}

permissions::CallFacts CallFactsFor(const registry::Tool& tool, nlohmann::json arguments) {
  permissions::CallFacts facts{tool.name, std::move(arguments), false, false};
  const nlohmann::json& annotations = tool.schema.annotations;
  if (annotations.is_object()) {
    // A hint that is not a boolean ("true", null) is no hint: value() would
    // throw on it.
    const auto hint = [&annotations](const char* name) {
      const auto it = annotations.find(name);
      return it != annotations.end() && it->is_boolean() && it->get<bool>();
    };
    facts.read_only_hint = hint("readOnlyHint");
    facts.open_world_hint = hint("openWorldHint");
  }
  return facts;
}

executor::ProfileChooser ChooserFor(std::function<permissions::Mode()> mode) {
  return [mode = std::move(mode)](const registry::Tool& tool, const executor::Call& call) {
    return ProfileFor(mode(), CallFactsFor(tool, call.arguments));
  };
}

std::string PermissionsSummary(permissions::Mode mode, const sandbox::Sandbox* sandbox) {
  std::string s = "Permission mode: " + std::string(permissions::ModeName(mode)) + " (" +
                  std::string(permissions::ModeDescription(mode)) + ").";
  if (mode == permissions::Mode::kUnrestricted || sandbox == nullptr) {
    return s + " No sandbox: tools run with the user's full rights.";
  }
  s += " Sandbox: " + sandbox->Summary() + ".";
  if (mode == permissions::Mode::kReadOnly) {
    std::string roots;
    for (const auto& root : sandbox->WritableRoots(sandbox::Access::kReadOnly)) {
      roots += (roots.empty() ? "" : ", ") + root;
    }
    s += " In read-only mode only " + roots + " are writable.";
  }
  return s;
}

}  // namespace ikigai::session
