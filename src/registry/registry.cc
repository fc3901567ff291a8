#include "registry/registry.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace ikigai::registry {

Registry::Registry(std::vector<Tool> tools, std::vector<DiscoveryFailure> failures)
    : tools_(std::move(tools)), failures_(std::move(failures)) {
  std::sort(tools_.begin(), tools_.end(),
            [](const Tool& a, const Tool& b) { return a.name < b.name; });
  std::sort(failures_.begin(), failures_.end(),
            [](const DiscoveryFailure& a, const DiscoveryFailure& b) {
              return std::tie(a.name, a.path) < std::tie(b.name, b.path);
            });
}

const Tool* Registry::Find(std::string_view name) const {
  auto it = std::lower_bound(tools_.begin(), tools_.end(), name,
                             [](const Tool& tool, std::string_view n) { return tool.name < n; });
  if (it == tools_.end() || it->name != name) return nullptr;
  return &*it;
}

std::shared_ptr<const Registry> RegistryHolder::Get() const {
  std::lock_guard lock(mutex_);
  return current_;
}

void RegistryHolder::Set(std::shared_ptr<const Registry> registry) {
  if (!registry) registry = std::make_shared<Registry>();
  std::shared_ptr<const Registry> old;
  {
    std::lock_guard lock(mutex_);
    old = std::exchange(current_, std::move(registry));
  }
  // `old` is released here, outside the lock: destroying a large snapshot
  // must not block readers.
}

}  // namespace ikigai::registry
