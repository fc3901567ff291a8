// The sandbox around a session's tools (DECISIONS §6): built once per run
// from the configuration, the working directory and what the kernel offers;
// which profile each call gets follows the permission mode, read at every
// call (the REPL's /permissions can change it).
//
//   unrestricted                      no confinement
//   read-only mode, read-only calls   the read-only profile (only the
//                                     temporary directories are writable)
//   everything else                   workspace-write
// Network only where the configuration says sandbox.network or the tool's
// schema says openWorldHint. A read-only call is one the permission layer
// lets run as read-only (readOnlyHint, or a bash command that only reads):
// the kernel then holds it to that, so the classifier is enforced, not
// trusted.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "executor/executor.h"
#include "permissions/policy.h"
#include "sandbox/sandbox.h"

namespace ikigai::session {

// For this working directory and configuration (sandbox.writable_roots,
// with ~/ expanded, and sandbox.network). Errors name the bad setting.
Result<std::shared_ptr<sandbox::Sandbox>, std::string> MakeSandbox(const config::Config& config);

// Why `mode` cannot run with this sandbox ("" if it can): `auto` runs
// everything without asking, so it needs Landlock.
std::string ModeRefusal(const sandbox::Sandbox& sandbox, permissions::Mode mode);

// What to say once when a session starts in `mode` ("" if nothing), a line
// each: that calls run unconfined (no Landlock), or that tier 2 is missing;
// then each directory kept from being writable, and why ($HOME as the
// working directory or TMPDIR, a writable root holding a secret).
std::string SandboxNotice(const sandbox::Sandbox& sandbox, permissions::Mode mode);

// The lines of a notice, for front ends that mark each one.
std::vector<std::string> NoticeLines(const std::string& notice);

// The profile for a call (see above); nullopt: unconfined.
std::optional<sandbox::Profile> ProfileFor(permissions::Mode mode,
                                           const permissions::CallFacts& call);

// What a call is, for the permission layer and the sandbox: its arguments
// and the annotations of its tool's schema.
permissions::CallFacts CallFactsFor(const registry::Tool& tool, nlohmann::json arguments);

// A chooser for the executor that reads the mode through `mode` at each call.
executor::ProfileChooser ChooserFor(std::function<permissions::Mode()> mode);

// For the system prompt, /status and --help: the mode and what the
// sandbox allows (null: none, the mode is unrestricted).
std::string PermissionsSummary(permissions::Mode mode, const sandbox::Sandbox* sandbox);

}  // namespace ikigai::session
