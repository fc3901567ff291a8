#include "session/session_hooks.h"

#include <unistd.h>

namespace ikigai::session {

std::unique_ptr<hooks::Hooks> MakeHooks(const HostContext& host,
                                        std::function<permissions::Mode()> mode,
                                        hooks::Reporter report) {
  if (host.config.hooks.size() == 0) return nullptr;
  hooks::RunSettings settings;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) != nullptr) settings.cwd = cwd;
  settings.sandbox = host.sandbox;
  const bool network = host.config.sandbox.network;
  settings.profile = [mode, network]() -> std::optional<sandbox::Profile> {
    if (mode() == permissions::Mode::kUnrestricted) return std::nullopt;
    return sandbox::Profile{sandbox::Access::kWorkspaceWrite, network};
  };
  settings.env_passthrough = host.config.tools.env_passthrough;
  auto made =
      std::make_unique<hooks::Hooks>(host.config.hooks, std::move(settings), std::move(report));
  made->SetModeName([mode] { return std::string(permissions::ModeName(mode())); });
  return made;
}

}  // namespace ikigai::session
