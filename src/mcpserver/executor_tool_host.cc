#include "mcpserver/executor_tool_host.h"

#include "hostapi/user_requests.h"

#include "session/mcp_tools.h"

#include "executor/executor.h"
#include "session/agent_setup.h"
#include "subagents/subagent_service.h"

namespace ikigai::mcpserver {
namespace {

// The task tool's subagents: the configured provider and model, the
// server's mode; they end with the server.
std::shared_ptr<subagents::SubagentService> SubagentsFor(const session::HostContext& host) {
  return std::make_shared<subagents::SubagentService>([&host] {
    auto settings = session::ProviderSettingsFor(host.config.agent, {});
    const std::string provider = settings ? settings->kind : "";
    return session::SubagentSettingsFor(
        host, provider, session::ModelFor(host.config.agent, {}, provider), host.mode);
  });
}

}  // namespace

Result<std::unique_ptr<ExecutorToolHost>, std::string> ExecutorToolHost::Create(
    const session::HostContext& host) {
  auto policy = session::MakeApprovalPolicy(host, nullptr);
  if (!policy) return Err(std::move(policy.error()));
  return std::unique_ptr<ExecutorToolHost>(new ExecutorToolHost(host, std::move(*policy)));
}

ExecutorToolHost::ExecutorToolHost(const session::HostContext& host,
                                   std::unique_ptr<session::ApprovalPolicy> policy)
    : host_(host),
      policy_(std::move(policy)),
      executor_(session::ExecutorFor(
          host, [&host] { return host.mode; },
          // No user to ask here: a tool's question is NO_USER.
          std::make_shared<hostapi::HostMethods>(nullptr, SubagentsFor(host)))) {
  registry_.Set(host.registry);
}

protocol::WrappedJson ExecutorToolHost::Call(const registry::Registry& snapshot,
                                             const registry::Tool& tool, nlohmann::json arguments,
                                             int cancel_fd) {
  agent::Permission permission;
  {
    std::lock_guard lock(policy_mutex_);
    permission = policy_->Decide({"mcp", tool.name, arguments.dump()}, &tool);
  }
  if (!permission.allowed) {
    return protocol::WrapFailure(protocol::wrapper_code::kPermissionDenied, permission.reason);
  }
  auto results = executor_.Run(snapshot, {{"mcp", tool.name, std::move(arguments)}}, cancel_fd);
  return std::move(results.front().wrapped);
}

void ExecutorToolHost::Rediscover() {
  auto discovered =
      session::WithoutHostChannelToolsInSubagents(std::make_shared<const registry::Registry>(
          discovery::Discover(host_.directories, session::DiscoveryOptionsFor(host_))));
  // The configured MCP servers' tools stay offered beside the new list.
  if (host_.mcp) discovered = session::WithCurrentMcpTools(*discovered, *host_.mcp);
  registry_.Set(std::move(discovered));
}

}  // namespace ikigai::mcpserver
