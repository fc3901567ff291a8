#include "mcpclient/server_manager.h"

#include "base/thread.h"
#include "mcpclient/http_transport.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "base/format.h"
#include "base/io.h"
#include "mcpclient/call_result.h"
#include "mcpclient/names.h"
#include "mcpclient/stdio_transport.h"
#include "sandbox/workspace.h"

namespace ikigai::mcpclient {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace code = protocol::wrapper_code;

bool Readable(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

std::optional<std::string> ProcessVariable(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string Target(const config::McpServerConfig& server) {
  if (server.is_http()) return server.url;
  std::string line = server.command;
  for (const std::string& arg : server.args) line += " " + arg;
  return line;
}

std::string Ms(std::chrono::milliseconds ms) { return FormatDuration(ms); }

}  // namespace

struct ServerManager::Server {
  config::McpServerConfig config;
  mutable std::mutex mutex;
  std::condition_variable changed;
  ServerState state = ServerState::kStarting;
  std::string why;
  bool reported = false;   // its failure was told by WaitStarted
  bool was_ready = false;  // a later failure is a death: restart on the next call
  bool stopping = false;
  bool tools_stale = false;  // notifications/tools/list_changed
  std::shared_ptr<Client> client;
  std::vector<RemoteTool> tools;
  std::shared_ptr<sandbox::Sandbox> own_sandbox;  // widened by the server's `sandbox`
  std::thread starter;
  std::mutex restart_mutex;  // one restart at a time
};

std::string_view StateName(ServerState state) {
  switch (state) {
    case ServerState::kStarting:
      return "starting";
    case ServerState::kReady:
      return "ready";
    case ServerState::kFailed:
      return "failed";
  }
  return "unknown";
}

const std::vector<std::string>& EnvironmentAllowList() {
  static const std::vector<std::string> kNames = {"PATH",   "HOME",     "USER",        "LOGNAME",
                                                  "SHELL",  "TERM",     "TMPDIR",      "LANG",
                                                  "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ"};
  return kNames;
}

std::vector<std::string> ServerEnvironment(
    const config::McpServerConfig& server, const config::VariableLookup& host_env,
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> env;
  for (const std::string& name : EnvironmentAllowList()) {
    if (auto value = host_env(name)) env[name] = *value;
  }
  for (const std::string& name : server.env_vars) {
    if (auto value = host_env(name)) env[name] = *value;
  }
  for (const auto& [name, value] : server.env) env[name] = value;
  for (const auto& [name, value] : extra) env[name] = value;
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

Result<std::map<std::string, std::string>, std::string> HttpHeaders(
    const config::McpServerConfig& server, const config::VariableLookup& env) {
  std::map<std::string, std::string> headers = server.headers;
  if (!server.bearer_token_env_var.empty()) {
    const auto token = env(server.bearer_token_env_var);
    if (!token || token->empty()) {
      return Err("bearer_token_env_var: " + server.bearer_token_env_var +
                 " is not set (set it to the server's token)");
    }
    headers["Authorization"] = "Bearer " + *token;
  }
  return headers;
}

Result<std::unique_ptr<Transport>, std::string> DefaultHttpTransport(
    const config::McpServerConfig& server, const std::map<std::string, std::string>& headers) {
  // The bearer token is among the headers already (HttpHeaders).
  return std::unique_ptr<Transport>(
      std::make_unique<HttpTransport>(server.url, headers, std::nullopt));
}

ServerManager::ServerManager(std::vector<config::McpServerConfig> servers, ManagerOptions options)
    : options_(std::move(options)) {
  if (!options_.env) options_.env = ProcessVariable;
  for (config::McpServerConfig& config : servers) {
    if (!config.enabled) continue;
    auto server = std::make_unique<Server>();
    server->config = std::move(config);
    servers_.push_back(std::move(server));
  }
}

ServerManager::~ServerManager() { StopAll(); }

Result<std::unique_ptr<Transport>, std::string> ServerManager::MakeTransport(Server& server) {
  const config::McpServerConfig& config = server.config;
  if (config.is_http()) {
    auto headers = HttpHeaders(config, options_.env);
    if (!headers) return Err(std::move(headers.error()));
    return options_.http(config, *headers);
  }
  std::vector<std::pair<std::string, std::string>> extra;
  StdioCommand command{config.command, config.args, {}, config.cwd};
  if (options_.sandbox) {
    std::shared_ptr<sandbox::Sandbox> sandbox = options_.sandbox;
    if (!config.sandbox_writable.empty()) {
      std::lock_guard lock(server.mutex);
      if (!server.own_sandbox) {
        sandbox::Settings settings = options_.sandbox->settings();
        const std::string home = options_.env("HOME").value_or("");
        const std::vector<std::string> secrets = sandbox::DefaultSecrets(home);
        for (std::string dir : config.sandbox_writable) {
          if (dir.starts_with("~/") && !home.empty()) dir = home + dir.substr(1);
          if (!dir.starts_with("/")) {
            return Err("sandbox.writable: \"" + dir +
                       "\" must be an absolute path or start with ~/");
          }
          // Judged as written before anything is made, and again once made
          // (a symbolic link may lead elsewhere), as sandbox.writable_roots is.
          std::string written = std::filesystem::path(dir).lexically_normal().string();
          while (written.size() > 1 && written.back() == '/') written.pop_back();
          std::string why = sandbox::WhyNotWritable(written, home, secrets);
          if (why.empty()) {
            if (auto made = MakeDirectories(dir, 0700); !made) return Err(std::move(made.error()));
            std::error_code error;
            dir = std::filesystem::canonical(dir, error).string();
            why = sandbox::WhyNotWritable(dir, home, secrets);
          }
          if (!why.empty()) return Err("sandbox.writable: \"" + dir + "\" is not allowed: " + why);
          settings.extra_writable.push_back(dir);
        }
        auto created = sandbox::Sandbox::Create(settings, options_.sandbox->support());
        if (!created) return Err("sandbox.writable: " + created.error());
        server.own_sandbox = std::move(*created);
      }
      sandbox = server.own_sandbox;
    }
    const sandbox::Confinement& confinement =
        sandbox->For(sandbox::Profile{sandbox::Access::kWorkspaceWrite, config.sandbox_network});
    command.pre_exec = confinement.pre_exec;
    command.pre_exec_context = confinement.context;
    extra.emplace_back("IKIGAI_SANDBOX", confinement.description);
    const std::string& temp_dir = sandbox->settings().temp_dir;
    if (auto host_tmp = options_.env("TMPDIR");
        host_tmp && !host_tmp->empty() && *host_tmp != temp_dir)
      extra.emplace_back("TMPDIR", temp_dir);
  }
  // The session's scratch directory marks the server as the session's: the
  // host guard ends what it left behind should the host die.
  for (const char* name : {"IKIGAI_SESSION_DIR", "IKIGAI_SESSION_ID"}) {
    if (auto value = options_.env(name)) extra.emplace_back(name, *value);
  }
  command.env = ServerEnvironment(config, options_.env, extra);
  return std::unique_ptr<Transport>(std::make_unique<StdioTransport>(std::move(command)));
}

void ServerManager::StartServer(Server& server) {
  const auto deadline = Clock::now() + server.config.startup_timeout;
  auto fail = [&](std::string why) {
    std::lock_guard lock(server.mutex);
    server.state = ServerState::kFailed;
    server.why = std::move(why);
    server.reported = false;
    server.changed.notify_all();
  };
  auto transport = MakeTransport(server);
  if (!transport) return fail(std::move(transport.error()));
  auto client = std::make_shared<Client>(std::move(*transport));
  {
    std::lock_guard lock(server.mutex);
    if (server.stopping) {
      // Whoever waits for this server must hear that it will not start.
      server.state = ServerState::kFailed;
      server.why = "stopped with the session";
      server.changed.notify_all();
      return;
    }
    server.client = client;
    client->OnToolsChanged([this, raw = &server] {
      {
        std::lock_guard inner(raw->mutex);
        raw->tools_stale = true;
      }
      tools_changed_ = true;
    });
  }
  if (auto connected = client->Connect(server.config.startup_timeout); !connected) {
    client->Close();
    return fail(std::move(connected.error()));
  }
  const auto left =
      std::max(std::chrono::milliseconds(1),
               std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
  auto tools = client->ListTools(left);
  if (!tools) {
    client->Close();
    return fail(std::move(tools.error()));
  }
  std::lock_guard lock(server.mutex);
  server.tools = std::move(*tools);
  server.state = ServerState::kReady;
  server.was_ready = true;
  server.why.clear();
  server.changed.notify_all();
}

void ServerManager::StartAll() {
  for (auto& server : servers_) {
    Server* raw = server.get();
    raw->starter = base::ThreadWithoutSignals([this, raw] { StartServer(*raw); });
  }
}

std::vector<std::string> ServerManager::WaitStarted(int cancel_fd) {
  std::vector<std::string> lines;
  for (auto& server : servers_) {
    std::unique_lock lock(server->mutex);
    while (server->state == ServerState::kStarting) {
      if (cancel_fd < 0) {
        server->changed.wait(lock);
      } else {
        // The condition cannot wait on a descriptor: look at it between waits.
        server->changed.wait_for(lock, std::chrono::milliseconds(50));
        if (Readable(cancel_fd)) return lines;
      }
    }
    if (server->state == ServerState::kFailed && !server->reported) {
      server->reported = true;
      lines.push_back("MCP server '" + server->config.name + "' is not available: " + server->why +
                      (server->config.required ? "" : "; going on without it"));
    }
  }
  return lines;
}

std::string ServerManager::RequiredFailure() const {
  for (const auto& server : servers_) {
    std::lock_guard lock(server->mutex);
    if (server->config.required && server->state == ServerState::kFailed) {
      return "MCP server '" + server->config.name + "' (required) failed to start: " + server->why +
             ". Fix it in " + server->config.source + ", or set \"required\": false";
    }
  }
  return {};
}

std::vector<registry::Tool> ServerManager::Tools() const {
  struct Entry {
    const config::McpServerConfig* config;
    RemoteTool tool;
  };
  std::vector<Entry> entries;
  for (const auto& server : servers_) {
    std::shared_ptr<Client> client;
    bool stale = false;
    {
      std::lock_guard lock(server->mutex);
      // A server that died after it was ready keeps its tools: a call to
      // one starts it again.
      const bool died = server->state == ServerState::kFailed && server->was_ready;
      if (server->state != ServerState::kReady && !died) continue;
      stale = server->tools_stale && !died;
      client = server->client;
    }
    if (stale && client) {
      // The server said its tools changed: list them again.
      if (auto tools = client->ListTools(server->config.tool_timeout); tools) {
        std::lock_guard lock(server->mutex);
        server->tools = std::move(*tools);
        server->tools_stale = false;
      }
    }
    std::lock_guard lock(server->mutex);
    const config::McpServerConfig& config = server->config;
    const std::set<std::string> disabled(config.disabled_tools.begin(),
                                         config.disabled_tools.end());
    std::optional<std::set<std::string>> enabled;
    if (config.enabled_tools)
      enabled.emplace(config.enabled_tools->begin(), config.enabled_tools->end());
    for (const RemoteTool& tool : server->tools) {
      if (disabled.contains(tool.name)) continue;
      if (enabled && !enabled->contains(tool.name)) continue;
      entries.push_back({&config, tool});
    }
  }
  std::vector<RawToolName> raw;
  for (const Entry& entry : entries) raw.push_back({entry.config->name, entry.tool.name});
  const std::vector<std::string> names = ToolNames(raw);
  std::vector<registry::Tool> tools;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& entry = entries[i];
    registry::Tool tool;
    tool.name = names[i];
    tool.path = "mcp:" + entry.config->name;
    tool.source = registry::Source::kMcp;
    tool.mcp_server = entry.config->name;
    tool.mcp_tool = entry.tool.name;
    tool.schema.name = names[i];
    tool.schema.description = entry.tool.description;
    json parameters = entry.tool.input_schema;
    parameters["type"] = "object";
    parameters.erase("$schema");  // some providers refuse it in a tool's parameters
    if (!parameters.contains("properties") || !parameters["properties"].is_object())
      parameters["properties"] = json::object();
    if (!parameters.contains("required") || !parameters["required"].is_array())
      parameters["required"] = json::array();
    tool.schema.parameters = parameters;
    // The server's annotations are hints nobody checked: kept for display,
    // never read by the permission layer or the call ordering.
    tool.schema.raw = {{"name", names[i]},
                       {"description", entry.tool.description},
                       {"parameters", parameters},
                       {"mcp_server", entry.config->name},
                       {"mcp_tool", entry.tool.name}};
    if (!entry.tool.annotations.is_null())
      tool.schema.raw["server_annotations"] = entry.tool.annotations;
    tool.schema.text = tool.schema.raw.dump(2);
    tools.push_back(std::move(tool));
  }
  return tools;
}

std::vector<ServerStatus> ServerManager::Status() const {
  std::vector<ServerStatus> out;
  const std::vector<registry::Tool> tools = Tools();
  for (const auto& server : servers_) {
    std::lock_guard lock(server->mutex);
    ServerStatus status{
        server->config.name, server->state, server->why, {}, Target(server->config)};
    if (status.state == ServerState::kReady && server->client && server->client->closed()) {
      status.state = ServerState::kFailed;
      status.why = server->client->closed_why();
    }
    for (const registry::Tool& tool : tools) {
      if (tool.mcp_server == server->config.name) status.tools.push_back(tool.name);
    }
    std::sort(status.tools.begin(), status.tools.end());
    out.push_back(std::move(status));
  }
  return out;
}

protocol::WrappedJson ServerManager::Call(const registry::Tool& tool, const json& arguments,
                                          int cancel_fd) {
  Server* server = nullptr;
  for (auto& candidate : servers_) {
    if (candidate->config.name == tool.mcp_server) server = candidate.get();
  }
  const std::string quoted = "Tool '" + tool.name + "'";
  if (server == nullptr) {
    return protocol::WrapFailure(
        code::kToolNotFound, quoted + ": no MCP server '" + tool.mcp_server + "' is configured.");
  }
  if (Readable(cancel_fd)) {
    return protocol::WrapFailure(code::kCancelled,
                                 quoted + " was cancelled by the user; it never started.");
  }
  std::shared_ptr<Client> client;
  {
    std::unique_lock lock(server->mutex);
    server->changed.wait(lock, [&] { return server->state != ServerState::kStarting; });
    const bool dead = server->state == ServerState::kFailed ||
                      (server->client != nullptr && server->client->closed());
    if (dead && server->was_ready && !server->stopping) {
      // It died since it was last used: start it again, once for all callers.
      lock.unlock();
      std::lock_guard restart(server->restart_mutex);
      lock.lock();
      if (server->state == ServerState::kFailed ||
          (server->client != nullptr && server->client->closed())) {
        std::shared_ptr<Client> old = std::move(server->client);
        server->state = ServerState::kStarting;
        lock.unlock();
        if (old) old->Close();
        StartServer(*server);
        lock.lock();
      }
    }
    if (server->state != ServerState::kReady || !server->client) {
      return protocol::WrapFailure(code::kToolCrashed,
                                   quoted + ": MCP server '" + server->config.name +
                                       "' is not running (" + server->why + "). Use another tool.");
    }
    client = server->client;
  }
  auto result = client->CallTool(tool.mcp_tool, arguments, server->config.tool_timeout, cancel_fd);
  if (result) {
    const std::size_t limit =
        server->config.output_limit > 0 ? server->config.output_limit : options_.output_limit;
    return WrapCallResult(*result, limit);
  }
  const RequestError& error = result.error();
  switch (error.kind) {
    case Failure::kTimeout:
      return protocol::WrapFailure(
          code::kToolTimeout,
          quoted + " timed out after " + Ms(server->config.tool_timeout) +
              "; the server was told to cancel it. This is the host's deadline (mcp_servers." +
              server->config.name + ".tool_timeout_ms); try a smaller or narrower request.");
    case Failure::kCancelled:
      return protocol::WrapFailure(code::kCancelled,
                                   quoted + " was cancelled by the user; the server was told.");
    case Failure::kClosed: {
      std::lock_guard lock(server->mutex);
      server->state = ServerState::kFailed;
      server->why = error.message;
      return protocol::WrapFailure(
          code::kToolCrashed, quoted + ": MCP server '" + server->config.name +
                                  "' stopped during the call (" + error.message +
                                  "). It will be started again at the next call of its tools; do "
                                  "not retry the same call unchanged.");
    }
    case Failure::kError:
      break;
  }
  if (error.code == -32602) {
    return protocol::WrapFailure(code::kInvalidParams,
                                 quoted + ": invalid arguments: " + error.message +
                                     ". Check the parameters against the tool's schema.");
  }
  protocol::WrappedJson failure = protocol::WrapFailure(
      "MCP_ERROR", quoted + ": the MCP server answered with an error: " + error.message);
  failure["mcp_error_code"] = error.code;
  return failure;
}

void ServerManager::StopAll() {
  for (auto& server : servers_) {
    std::shared_ptr<Client> client;
    {
      std::lock_guard lock(server->mutex);
      server->stopping = true;
      client = server->client;
    }
    if (client) client->Close();
    if (server->starter.joinable()) server->starter.join();
    std::lock_guard lock(server->mutex);
    if (server->client) server->client->Close();
  }
}

}  // namespace ikigai::mcpclient
