// The seam between the MCP server and ikigai's tools: which tools there are
// (the registry snapshot discovery built) and how one call runs. The real
// one (executor_tool_host.h) runs calls through executor::Executor under the
// session's permission policy and sandbox; the dispatcher's tests use a fake.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "protocol/wrapper.h"
#include "registry/registry.h"

namespace ikigai::mcpserver {

class ToolHost {
 public:
  virtual ~ToolHost() = default;

  // The tools now; the same for every MCP session.
  virtual std::shared_ptr<const registry::Registry> Tools() const = 0;

  // Runs `tool` (found in `snapshot`) with `arguments`; a readable
  // `cancel_fd` stops it (its process group is killed, error_code
  // CANCELLED). Safe to call from several threads at once.
  virtual protocol::WrappedJson Call(const registry::Registry& snapshot, const registry::Tool& tool,
                                     nlohmann::json arguments, int cancel_fd) = 0;
};

}  // namespace ikigai::mcpserver
