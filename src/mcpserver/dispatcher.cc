#include "mcpserver/dispatcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "base/unique_fd.h"
#include "mcpserver/tool_mapping.h"

namespace ikigai::mcpserver {
namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 3> kSupportedVersions = {"2025-11-25", "2025-06-18",
                                                                "2025-03-26"};
// RFC 5424 severities, as MCP names them, least severe first.
constexpr std::array<std::string_view, 8> kLogLevels = {"debug", "info",     "notice", "warning",
                                                        "error", "critical", "alert",  "emergency"};

int LevelIndex(std::string_view level) {
  for (std::size_t i = 0; i < kLogLevels.size(); ++i) {
    if (kLogLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

Json Result(const Json& id, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

// One tools/call in flight: writing to `cancel_write` stops it.
struct CallControl {
  UniqueFd cancel_read;
  UniqueFd cancel_write;
  bool cancelled = false;
};

}  // namespace

bool IsSupportedProtocolVersion(std::string_view version) {
  for (std::string_view known : kSupportedVersions) {
    if (known == version) return true;
  }
  return false;
}

Json ErrorResponse(const Json& id, int code, std::string message) {
  return {
      {"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}};
}

// Shared with the calls' threads, which may outlive nothing: the
// dispatcher's destructor waits for them, but they hold the state anyway.
struct Dispatcher::State {
  ToolHost& tools;
  ServerInfo info;
  Send notify;
  std::mutex mutex;
  std::condition_variable calls_done;
  std::string protocol_version = std::string(kLatestProtocolVersion);
  int log_level = LevelIndex("info");
  std::map<std::string, std::shared_ptr<CallControl>> calls;  // by the request id's JSON
  int running = 0;

  State(ToolHost& tools_in, ServerInfo info_in, Send notify_in)
      : tools(tools_in), info(std::move(info_in)), notify(std::move(notify_in)) {}

  void Cancel(const std::shared_ptr<CallControl>& call) {
    if (call->cancelled) return;
    call->cancelled = true;
    const char byte = 'c';
    (void)!::write(call->cancel_write.get(), &byte, 1);
  }
};

Dispatcher::Dispatcher(ToolHost& tools, ServerInfo info, Send notify)
    : state_(std::make_shared<State>(tools, std::move(info), std::move(notify))) {}

Dispatcher::~Dispatcher() {
  CancelAll();
  std::unique_lock lock(state_->mutex);
  state_->calls_done.wait(lock, [this] { return state_->running == 0; });
}

void Dispatcher::CancelAll() {
  std::lock_guard lock(state_->mutex);
  for (auto& [id, call] : state_->calls) state_->Cancel(call);
}

std::string Dispatcher::protocol_version() const {
  std::lock_guard lock(state_->mutex);
  return state_->protocol_version;
}

void Dispatcher::NotifyToolsChanged() {
  state_->notify({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
}

void Dispatcher::Log(std::string_view level, const Json& data) {
  const int index = LevelIndex(level);
  {
    std::lock_guard lock(state_->mutex);
    if (index < state_->log_level) return;
  }
  state_->notify(
      {{"jsonrpc", "2.0"},
       {"method", "notifications/message"},
       {"params", {{"level", std::string(level)}, {"logger", "ikigai"}, {"data", data}}}});
}

Dispatcher::Kind Dispatcher::Handle(std::string_view text, Send reply) {
  Json message = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    reply(ErrorResponse(nullptr, kParseError,
                        "Parse error: the message is not valid JSON. Send one JSON-RPC 2.0 "
                        "object per message."));
    return Kind::kInvalid;
  }
  return HandleJson(message, std::move(reply));
}

Dispatcher::Kind Dispatcher::HandleJson(const Json& message, Send reply) {
  if (!message.is_object()) {
    reply(ErrorResponse(nullptr, kInvalidRequest,
                        message.is_array()
                            ? "Invalid request: batches are not supported; send one message "
                              "at a time."
                            : "Invalid request: a JSON-RPC message is an object."));
    return Kind::kInvalid;
  }
  const auto id_it = message.find("id");
  const bool has_id = id_it != message.end();
  const bool valid_id = has_id && (id_it->is_string() || id_it->is_number_integer());
  const Json id = valid_id ? *id_it : Json(nullptr);
  const auto method_it = message.find("method");
  if (StringMember(message, "jsonrpc") != "2.0" ||
      (method_it != message.end() && !method_it->is_string()) || (has_id && !valid_id)) {
    reply(ErrorResponse(id, kInvalidRequest,
                        "Invalid request: expected {\"jsonrpc\": \"2.0\", \"method\": string, "
                        "\"id\": string or integer (absent for a notification)}."));
    return Kind::kInvalid;
  }
  if (method_it == message.end()) {
    if (has_id && (message.contains("result") || message.contains("error"))) return Kind::kResponse;
    reply(ErrorResponse(id, kInvalidRequest, "Invalid request: no \"method\"."));
    return Kind::kInvalid;
  }
  const std::string& method = method_it->get_ref<const std::string&>();
  const Json params = message.contains("params") ? message["params"] : Json::object();

  if (!has_id) {
    if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId")) {
      std::lock_guard lock(state_->mutex);
      auto call = state_->calls.find(params["requestId"].dump());
      if (call != state_->calls.end()) state_->Cancel(call->second);
    }
    // notifications/initialized and any other: nothing to do.
    return Kind::kNotification;
  }

  if (!params.is_object()) {
    reply(ErrorResponse(id, kInvalidParams, "Invalid params: \"params\" must be an object."));
    return Kind::kRequest;
  }
  if (method == "initialize") {
    const std::string asked = StringMember(params, "protocolVersion");
    const std::string version =
        IsSupportedProtocolVersion(asked) ? asked : std::string(kLatestProtocolVersion);
    {
      std::lock_guard lock(state_->mutex);
      state_->protocol_version = version;
    }
    reply(Result(
        id, {{"protocolVersion", version},
             {"capabilities", {{"tools", {{"listChanged", true}}}, {"logging", Json::object()}}},
             {"serverInfo", {{"name", state_->info.name}, {"version", state_->info.version}}},
             {"instructions",
              "ikigai's tools: each is an external executable run under ikigai's "
              "sandbox. Results are JSON (structuredContent)."}}));
  } else if (method == "ping") {
    reply(Result(id, Json::object()));
  } else if (method == "tools/list") {
    Json tools = Json::array();
    for (const registry::Tool& tool : state_->tools.Tools()->tools())
      tools.push_back(McpTool(tool));
    reply(Result(id, {{"tools", std::move(tools)}}));
  } else if (method == "logging/setLevel") {
    const int level = LevelIndex(StringMember(params, "level"));
    if (level < 0) {
      reply(ErrorResponse(id, kInvalidParams,
                          "Invalid params: \"level\" must be one of debug, info, notice, warning, "
                          "error, critical, alert, emergency."));
    } else {
      {
        std::lock_guard lock(state_->mutex);
        state_->log_level = level;
      }
      reply(Result(id, Json::object()));
    }
  } else if (method == "tools/call") {
    StartCall(id, params, std::move(reply));
  } else {
    reply(ErrorResponse(id, kMethodNotFound,
                        "Method not found: " + method +
                            ". This server offers tools only (tools/list, tools/call)."));
  }
  return Kind::kRequest;
}

void Dispatcher::StartCall(const Json& id, const Json& params, Send reply) {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    reply(ErrorResponse(id, kInvalidParams, "Invalid params: \"name\" (a string) is required."));
    return;
  }
  Json arguments = params.contains("arguments") ? params["arguments"] : Json::object();
  if (arguments.is_null()) arguments = Json::object();
  if (!arguments.is_object()) {
    reply(ErrorResponse(id, kInvalidParams, "Invalid params: \"arguments\" must be an object."));
    return;
  }
  std::shared_ptr<const registry::Registry> snapshot = state_->tools.Tools();
  const registry::Tool* tool = snapshot->Find(name->get<std::string>());
  if (tool == nullptr) {
    reply(ErrorResponse(id, kInvalidParams,
                        "Unknown tool: " + name->get<std::string>() +
                            ". tools/list gives the tools this server has."));
    return;
  }
  auto call = std::make_shared<CallControl>();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    reply(Result(id, McpCallResult(protocol::WrapFailure(
                         protocol::wrapper_code::kToolCrashed,
                         "the server cannot start the call (no pipe): try again"))));
    return;
  }
  call->cancel_read.Reset(fds[0]);
  call->cancel_write.Reset(fds[1]);
  const std::string key = id.dump();
  {
    std::lock_guard lock(state_->mutex);
    if (state_->calls.contains(key)) {
      reply(ErrorResponse(id, kInvalidRequest,
                          "Invalid request: a call with id " + key + " is still running."));
      return;
    }
    state_->calls[key] = call;
    ++state_->running;
  }
  std::thread([state = state_, call, key, id, snapshot, tool, arguments = std::move(arguments),
               reply = std::move(reply)]() mutable {
    protocol::WrappedJson wrapped =
        state->tools.Call(*snapshot, *tool, std::move(arguments), call->cancel_read.get());
    bool cancelled;
    {
      std::lock_guard lock(state->mutex);
      cancelled = call->cancelled;
      state->calls.erase(key);
    }
    if (!cancelled) reply(Result(id, McpCallResult(wrapped)));
    std::lock_guard lock(state->mutex);
    --state->running;
    state->calls_done.notify_all();
  }).detach();
}

std::string StringMember(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace ikigai::mcpserver
