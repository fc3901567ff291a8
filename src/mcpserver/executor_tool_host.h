// The tools as the agent has them: the registry discovery built for the
// host (same directories, precedence and trust), each call decided by the
// session's permission policy (in `ask` mode, what would need approval is
// refused, as in `ikigai -p`: nobody can answer here) and run through
// executor::Executor under the host's sandbox and the mode's profiles.
#pragma once

#include <memory>
#include <mutex>

#include "mcpserver/tool_host.h"
#include "session/approval.h"
#include "session/host_context.h"

namespace ikigai::mcpserver {

class ExecutorToolHost final : public ToolHost {
 public:
  // `host` must outlive this.
  static Result<std::unique_ptr<ExecutorToolHost>, std::string> Create(
      const session::HostContext& host);

  std::shared_ptr<const registry::Registry> Tools() const override { return registry_.Get(); }
  protocol::WrappedJson Call(const registry::Registry& snapshot, const registry::Tool& tool,
                             nlohmann::json arguments, int cancel_fd) override;

  // Discovers the tools again (the directories changed); calls in flight
  // keep the snapshot they started with.
  void Rediscover();

 private:
  ExecutorToolHost(const session::HostContext& host,
                   std::unique_ptr<session::ApprovalPolicy> policy);

  const session::HostContext& host_;
  registry::RegistryHolder registry_;
  std::mutex policy_mutex_;
  std::unique_ptr<session::ApprovalPolicy> policy_;
  executor::Executor executor_;
};

}  // namespace ikigai::mcpserver
