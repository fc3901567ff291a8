// What every host command needs: the configuration and the tool registry.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "discovery/discovery.h"
#include "registry/registry.h"
#include "session/trust.h"

namespace ikigai::session {

struct HostContext {
  config::Config config;
  discovery::Directories directories;
  std::shared_ptr<const registry::Registry> registry;
  TrustState trust;
};

// Loads the configuration (errors name the file and key) and discovers the
// tools. Untrusted, the project's config and tools are left out.
Result<HostContext, std::string> LoadHostContext(const TrustState& trust);

// The configuration and the directories only, with an empty registry: for
// the REPL, which discovers the tools in the background.
Result<HostContext, std::string> LoadHostConfig(const TrustState& trust);

// How discovery is configured (the schema timeout).
discovery::DiscoveryOptions DiscoveryOptionsFor(const config::Config& config);

// How a tool's path is shown: relative to the working directory when under
// it, "~/..." when under the home directory, else absolute.
std::string DisplayPath(const std::string& path);

}  // namespace ikigai::session
