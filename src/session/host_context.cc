#include "session/host_context.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace ikigai::session {

Result<HostContext, std::string> LoadHostConfig(const TrustState& trust) {
  config::ConfigFiles files = config::DefaultConfigFiles();
  discovery::Directories directories = discovery::DefaultDirectories();
  if (!trust.trusted) {
    files.project.clear();
    directories.project.clear();
  }
  auto config = config::LoadConfig(files);
  if (!config) return Err(std::move(config.error()));
  return HostContext{std::move(*config), std::move(directories),
                     std::make_shared<const registry::Registry>(), trust};
}

discovery::DiscoveryOptions DiscoveryOptionsFor(const config::Config& config) {
  discovery::DiscoveryOptions options;
  options.schema_timeout = config.schema_timeout;
  return options;
}

Result<HostContext, std::string> LoadHostContext(const TrustState& trust) {
  auto context = LoadHostConfig(trust);
  if (!context) return context;
  context->registry = std::make_shared<const registry::Registry>(
      discovery::Discover(context->directories, DiscoveryOptionsFor(context->config)));
  return context;
}

std::string DisplayPath(const std::string& raw) {
  // "build/bin/../libexec/ikigai/x-tool" reads better as "build/libexec/ikigai/x-tool".
  const std::string path = std::filesystem::path(raw).lexically_normal().string();
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) != nullptr) {
    const std::string prefix = std::string(cwd) + "/";
    if (path.starts_with(prefix)) return path.substr(prefix.size());
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    const std::string prefix = std::string(home) + "/";
    if (path.starts_with(prefix)) return "~/" + path.substr(prefix.size());
  }
  return path;
}

}  // namespace ikigai::session
