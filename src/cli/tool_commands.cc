#include "cli/tool_commands.h"

#include <nlohmann/json.hpp>

#include "executor/executor.h"
#include "protocol/wrapper.h"

namespace ikigai::cli {

void PrintDiscoveryProblems(const registry::Registry& registry, std::ostream& out) {
  for (const auto& failure : registry.failures()) {
    if (failure.name.empty()) {  // a whole directory
      out << "Debug: tool directory " << DisplayPath(failure.path) << " skipped (" << failure.reason
          << ")\n";
      continue;
    }
    out << "Debug: tool '" << failure.name << "' schema failed (" << failure.reason;
    if (!failure.detail.empty()) out << ": " << failure.detail;
    out << ")\n";
  }
  for (const auto& tool : registry.tools()) {
    for (const auto& warning : tool.warnings) {
      out << "Debug: tool '" << tool.name << "': " << warning << "\n";
    }
  }
}

int ListTools(const HostContext& host, std::ostream& out) {
  out << "Available tools:\n";
  for (const auto& tool : host.registry->tools()) {
    out << "  " << tool.name << " (" << DisplayPath(tool.path) << ")\n";
  }
  if (host.registry->tools().empty()) out << "  (none)\n";
  PrintDiscoveryProblems(*host.registry, out);
  return 0;
}

namespace {

// Pretty-printed in the tool's own key order (name, description, ...).
std::string PrettySchema(const protocol::ToolSchema& schema) {
  const auto ordered = nlohmann::ordered_json::parse(schema.text, nullptr, false);
  return ordered.is_discarded() ? schema.raw.dump(2) : ordered.dump(2);
}

}  // namespace

int ShowTool(const HostContext& host, const std::string& name, std::ostream& out,
             std::ostream& err) {
  const registry::Tool* tool = host.registry->Find(name);
  if (tool == nullptr) {
    err << "Unknown tool: '" << name << "'\n"
        << "Use /tool to see available tools.\n";
    return 1;
  }
  out << "Tool: " << tool->name << "\n"
      << "Path: " << DisplayPath(tool->path) << "\n"
      << "Schema:\n"
      << PrettySchema(tool->schema) << "\n";
  for (const auto& warning : tool->warnings) out << "Warning: " << warning << "\n";
  return 0;
}

int CallTool(const HostContext& host, const std::string& name, const std::string& arguments,
             std::ostream& out) {
  protocol::WrappedJson wrapped;
  nlohmann::json parsed = nlohmann::json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    wrapped = protocol::WrapFailure(
        protocol::wrapper_code::kInvalidParams,
        "The arguments are not valid JSON. Pass one JSON object, e.g. '{\"command\": \"ls\"}'.");
  } else {
    const executor::Executor executor(host.config.tools);
    auto results = executor.Run(*host.registry, {{"cli", name, std::move(parsed)}});
    wrapped = std::move(results.front().wrapped);
  }
  out << wrapped.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return wrapped.value("tool_success", false) ? 0 : 1;
}

}  // namespace ikigai::cli
