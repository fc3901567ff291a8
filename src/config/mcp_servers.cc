// Reading an MCP server's settings: each field checked for its type, then
// the variables expanded. The two file formats share the field readers;
// `.mcp.json` only knows command/args/env and type/url/headers.
#include "config/mcp_servers.h"

#include <set>

#include "protocol/parse_json.h"

namespace ikigai::config {
namespace {

using Json = nlohmann::json;

bool IsVariableStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsVariableChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Reads the fields of one server; `where` is "mcp_servers.NAME".
class Reader {
 public:
  Reader(std::string where, const VariableLookup& env) : where_(std::move(where)), env_(env) {}

  std::string error;  // the first error, "" while none

  std::string String(const Json& object, const char* field, bool expand) {
    auto it = object.find(field);
    if (it == object.end() || error.size() > 0) return {};
    if (!it->is_string()) return Fail(field, "must be a string, got " + it->dump()), "";
    return expand ? Expand(field, it->get<std::string>()) : it->get<std::string>();
  }

  std::vector<std::string> List(const Json& object, const char* field, bool expand) {
    std::vector<std::string> out;
    auto it = object.find(field);
    if (it == object.end() || error.size() > 0) return out;
    if (!it->is_array()) return Fail(field, "must be a list of strings, got " + it->dump()), out;
    for (const Json& item : *it) {
      if (!item.is_string()) {
        Fail(field, "must be a list of strings, got " + it->dump());
        return {};
      }
      out.push_back(expand ? Expand(field, item.get<std::string>()) : item.get<std::string>());
    }
    return out;
  }

  std::map<std::string, std::string> Map(const Json& object, const char* field) {
    std::map<std::string, std::string> out;
    auto it = object.find(field);
    if (it == object.end() || error.size() > 0) return out;
    if (!it->is_object()) {
      Fail(field, "must be an object of strings, e.g. {\"NAME\": \"value\"}, got " + it->dump());
      return out;
    }
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) {
        Fail(std::string(field) + "." + key, "must be a string, got " + value.dump());
        return {};
      }
      out[key] = Expand(std::string(field) + "." + key, value.get<std::string>());
    }
    return out;
  }

  bool Boolean(const Json& object, const char* field, bool fallback) {
    auto it = object.find(field);
    if (it == object.end() || error.size() > 0) return fallback;
    if (!it->is_boolean()) return Fail(field, "must be true or false, got " + it->dump()), fallback;
    return it->get<bool>();
  }

  std::int64_t Positive(const Json& object, const char* field, std::int64_t fallback) {
    auto it = object.find(field);
    if (it == object.end() || error.size() > 0) return fallback;
    if (!it->is_number_integer() || it->get<std::int64_t>() <= 0 ||
        it->get<std::int64_t>() > 24LL * 3600 * 1000 * 1000) {
      return Fail(field, "must be a positive integer, got " + it->dump()), fallback;
    }
    return it->get<std::int64_t>();
  }

  void Fail(const std::string& field, const std::string& why) {
    if (error.empty()) error = where_ + "." + field + ": " + why;
  }

 private:
  std::string Expand(const std::string& field, const std::string& text) {
    auto expanded = ExpandVariables(text, env_);
    if (!expanded) return Fail(field, expanded.error()), "";
    return *expanded;
  }

  std::string where_;
  const VariableLookup& env_;
};

std::string Known(const std::set<std::string>& fields) {
  std::string list;
  for (const std::string& f : fields) list += (list.empty() ? "" : ", ") + f;
  return list;
}

}  // namespace

Result<std::string, std::string> ExpandVariables(const std::string& text,
                                                 const VariableLookup& env) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    const std::size_t close = text.find('}', i + 2);
    if (close == std::string::npos) return Err("unclosed \"${\" in \"" + text + "\"");
    const std::string inside = text.substr(i + 2, close - i - 2);
    const std::size_t dash = inside.find(":-");
    const std::string name = inside.substr(0, dash);
    bool valid = !name.empty() && IsVariableStart(name[0]);
    for (char c : name) valid = valid && IsVariableChar(c);
    if (!valid)
      return Err("\"${" + inside + "}\" is not a variable (write ${NAME} or ${NAME:-default})");
    const std::optional<std::string> value = env(name);
    if (value && !value->empty()) {
      out += *value;
    } else if (dash != std::string::npos) {
      out += inside.substr(dash + 2);
    } else {
      return Err("${" + name + "} is not set (set it, or write ${" + name + ":-default})");
    }
    i = close + 1;
  }
  return out;
}

std::string CheckServerName(const std::string& name) {
  if (name.empty()) return "a server needs a name";
  if (name.find("__") != std::string::npos) {
    return "\"__\" is not allowed in a server name (it separates mcp__SERVER__TOOL); use \"_\" or "
           "\"-\"";
  }
  return {};
}

Result<McpServerConfig, std::string> ParseMcpServer(const std::string& name, const Json& value,
                                                    const std::string& source,
                                                    const VariableLookup& env) {
  const std::string where = "mcp_servers." + name;
  if (std::string why = CheckServerName(name); !why.empty()) return Err(where + ": " + why);
  if (!value.is_object()) return Err(where + ": must be an object, got " + value.dump());
  static const std::set<std::string> kFields = {"command",
                                                "args",
                                                "env",
                                                "env_vars",
                                                "cwd",
                                                "url",
                                                "headers",
                                                "bearer_token_env_var",
                                                "enabled",
                                                "required",
                                                "enabled_tools",
                                                "disabled_tools",
                                                "startup_timeout_ms",
                                                "tool_timeout_ms",
                                                "output_limit_bytes",
                                                "sandbox"};
  for (const auto& [field, unused] : value.items()) {
    if (!kFields.contains(field)) {
      return Err(where + "." + field + ": unknown field (known here: " + Known(kFields) + ")");
    }
  }
  McpServerConfig server;
  server.name = name;
  server.source = source;
  Reader read(where, env);
  server.command = read.String(value, "command", true);
  server.args = read.List(value, "args", true);
  server.env = read.Map(value, "env");
  server.env_vars = read.List(value, "env_vars", false);
  server.cwd = read.String(value, "cwd", true);
  server.url = read.String(value, "url", true);
  server.headers = read.Map(value, "headers");
  server.bearer_token_env_var = read.String(value, "bearer_token_env_var", false);
  server.enabled = read.Boolean(value, "enabled", true);
  server.required = read.Boolean(value, "required", false);
  if (value.contains("enabled_tools"))
    server.enabled_tools = read.List(value, "enabled_tools", false);
  server.disabled_tools = read.List(value, "disabled_tools", false);
  server.startup_timeout =
      std::chrono::milliseconds(read.Positive(value, "startup_timeout_ms", 30000));
  server.tool_timeout = std::chrono::milliseconds(read.Positive(value, "tool_timeout_ms", 120000));
  server.output_limit = static_cast<std::size_t>(read.Positive(value, "output_limit_bytes", 0));
  if (auto sandbox = value.find("sandbox"); sandbox != value.end() && read.error.empty()) {
    if (!sandbox->is_object()) {
      read.Fail("sandbox",
                "must be an object like {\"network\": true, \"writable\": [\"~/.npm\"]}, got " +
                    sandbox->dump());
    } else {
      for (const auto& [field, unused] : sandbox->items()) {
        if (field != "network" && field != "writable") {
          read.Fail("sandbox." + field, "unknown field (known here: network, writable)");
        }
      }
      server.sandbox_network = read.Boolean(*sandbox, "network", false);
      server.sandbox_writable = read.List(*sandbox, "writable", true);
    }
  }
  if (!read.error.empty()) return Err(std::move(read.error));
  if (server.command.empty() == server.url.empty()) {
    return Err(where +
               ": needs either \"command\" (a stdio server) or \"url\" (Streamable HTTP), " +
               (server.command.empty() ? "got neither" : "not both"));
  }
  if (server.is_http()) {
    for (const char* field : {"args", "env", "env_vars", "cwd"}) {
      if (value.contains(field)) {
        return Err(where + "." + field + ": only for stdio servers (this one has \"url\")");
      }
    }
    if (!server.url.starts_with("http://") && !server.url.starts_with("https://")) {
      return Err(where + ".url: must start with http:// or https://, got \"" + server.url + "\"");
    }
  } else {
    for (const char* field : {"headers", "bearer_token_env_var"}) {
      if (value.contains(field)) {
        return Err(where + "." + field + ": only for HTTP servers (this one has \"command\")");
      }
    }
  }
  return server;
}

Result<McpJsonServers, std::string> ParseMcpJson(const std::string& text, const std::string& source,
                                                 const VariableLookup& env) {
  auto parsed = protocol::ParseJson(text);
  if (!parsed) return Err(source + ": invalid JSON: " + parsed.error());
  if (!parsed->is_object()) return Err(source + ": must be a JSON object");
  McpJsonServers out;
  auto list = parsed->find("mcpServers");
  if (list == parsed->end()) return out;
  if (!list->is_object()) return Err(source + ": mcpServers: must be an object");
  for (const auto& [name, entry] : list->items()) {
    // The file is shared with other agents, which may know more than ikigai:
    // what ikigai cannot use is left out with a line, never the whole file.
    const std::string where = source + ": mcpServers." + name;
    const auto leave_out = [&](const std::string& why) {
      out.left_out.push_back(where + ": left out: " + why);
    };
    if (!entry.is_object()) {
      leave_out("must be an object, got " + entry.dump());
      continue;
    }
    // Claude Code's shape into Codex's: "type" says the transport; other
    // agents' fields (a timeout, say) are not ikigai's and are passed over.
    Json codex = Json::object();
    std::string type = "stdio";
    if (const auto t = entry.find("type"); t != entry.end()) {
      type = t->is_string() ? t->get<std::string>() : t->dump();
    }
    for (const char* field : {"command", "args", "env", "url", "headers"}) {
      if (const auto value = entry.find(field); value != entry.end()) codex[field] = *value;
    }
    if (type != "stdio" && type != "http") {
      leave_out("type \"" + type + "\" is not one ikigai speaks (\"stdio\" or \"http\"" +
                (type == "sse" ? "; the older HTTP+SSE transport is not supported" : "") + ")");
      continue;
    }
    auto server = ParseMcpServer(name, codex, source, env);
    if (!server) {
      leave_out(server.error());
      continue;
    }
    out.servers.push_back(std::move(*server));
  }
  return out;
}

}  // namespace ikigai::config
