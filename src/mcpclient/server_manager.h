// The MCP servers of a session (DECISIONS §10): started in the background
// when the session starts, offered as tools once ready, called through the
// executor (executor::RemoteTools), stopped with the session.
//
// Each server is starting, ready or failed (with why). A session waits for
// the servers still starting only when it first needs the tool list
// (WaitStarted), each at most its startup timeout; one that never answers
// is then given up with one line. A server that dies (mid-call or between
// calls) is failed; the next call of one of its tools starts it again.
//
// Stdio servers run under the session's sandbox like tools (workspace-write,
// no network unless the server's `sandbox` widens it) with a short
// environment: an allow-list of the host's variables, then the server's
// env_vars and env; never the API keys.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/mcp_servers.h"
#include "executor/executor.h"
#include "mcpclient/client.h"
#include "mcpclient/transport.h"
#include "registry/registry.h"
#include "sandbox/sandbox.h"

namespace ikigai::mcpclient {

enum class ServerState { kStarting, kReady, kFailed };

struct ServerStatus {
  std::string name;
  ServerState state = ServerState::kStarting;
  std::string why;                 // kFailed: one line
  std::vector<std::string> tools;  // ikigai's names of its tools (when ready)
  std::string target;              // the command line or the URL
};

std::string_view StateName(ServerState state);

// The host's variables a stdio server gets by default.
const std::vector<std::string>& EnvironmentAllowList();

// The environment of a stdio server: the allow-list's variables from
// `host_env`, the server's env_vars, then its env (and `extra`).
std::vector<std::string> ServerEnvironment(
    const config::McpServerConfig& server, const config::VariableLookup& host_env,
    const std::vector<std::pair<std::string, std::string>>& extra = {});

// Makes the transport for an HTTP server (the Streamable HTTP client) for
// server.url with these headers (the configured ones, and "Authorization:
// Bearer ..." from bearer_token_env_var); errors are one line.
using HttpTransportFactory = std::function<Result<std::unique_ptr<Transport>, std::string>(
    const config::McpServerConfig& server, const std::map<std::string, std::string>& headers)>;

// The factory point for `url` servers: the Streamable HTTP client goes here
// (until it is built in, such a server fails saying so).
Result<std::unique_ptr<Transport>, std::string> DefaultHttpTransport(
    const config::McpServerConfig& server, const std::map<std::string, std::string>& headers);

// The headers of an HTTP server's requests; an unset bearer_token_env_var
// is an error naming it.
Result<std::map<std::string, std::string>, std::string> HttpHeaders(
    const config::McpServerConfig& server, const config::VariableLookup& env);

struct ManagerOptions {
  std::shared_ptr<sandbox::Sandbox> sandbox = nullptr;  // null: servers run unconfined
  std::size_t output_limit = 64 * 1024;  // when the server sets no output_limit_bytes
  HttpTransportFactory http = DefaultHttpTransport;
  config::VariableLookup env = nullptr;  // null: the process's environment
};

class ServerManager : public executor::RemoteTools {
 public:
  // Only the enabled servers are kept.
  ServerManager(std::vector<config::McpServerConfig> servers, ManagerOptions options);
  ~ServerManager() override;  // stops every server
  ServerManager(const ServerManager&) = delete;
  ServerManager& operator=(const ServerManager&) = delete;

  // Starts every server, each on a thread of its own; returns at once.
  void StartAll();
  // Waits for the servers still starting (each at most its startup
  // timeout, or until `cancel_fd` is readable). Returns one line for each
  // server that failed since the last call, to tell the user once.
  std::vector<std::string> WaitStarted(int cancel_fd = -1);
  // A required server that failed: the message to stop with; "" if none.
  std::string RequiredFailure() const;

  // The tools of the ready servers, as registry entries, named
  // mcp__SERVER__TOOL, after enabled_tools and disabled_tools.
  std::vector<registry::Tool> Tools() const;
  std::vector<ServerStatus> Status() const;
  // Whether a server said its tools changed (notifications/tools/
  // list_changed) since the last call: Tools() then lists them again.
  bool TakeToolsChanged() { return tools_changed_.exchange(false); }
  bool empty() const { return servers_.empty(); }

  protocol::WrappedJson Call(const registry::Tool& tool, const nlohmann::json& arguments,
                             int cancel_fd) override;

  // Stops every server (their process groups are killed).
  void StopAll();

 private:
  struct Server;
  void StartServer(Server& server);
  Result<std::unique_ptr<Transport>, std::string> MakeTransport(Server& server);

  std::vector<std::unique_ptr<Server>> servers_;
  ManagerOptions options_;
  std::atomic<bool> tools_changed_{false};
};

}  // namespace ikigai::mcpclient
