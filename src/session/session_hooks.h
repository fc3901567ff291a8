// The session's hooks (hooks/hooks.h) from the host's configuration: run
// in the working directory, under the session's sandbox with the profile
// tools get (workspace-write, the configured network; none in the
// unrestricted mode), with the tools' environment. A project's hooks are
// among them only in a trusted folder: its config is not read otherwise.
#pragma once

#include <functional>
#include <memory>

#include "hooks/hooks.h"
#include "permissions/policy.h"
#include "session/host_context.h"

namespace ikigai::session {

// Null when no hook is configured: every event then costs nothing.
// `mode` is read at each event; `report` gets the lines for the user.
std::unique_ptr<hooks::Hooks> MakeHooks(const HostContext& host,
                                        std::function<permissions::Mode()> mode,
                                        hooks::Reporter report);

}  // namespace ikigai::session
