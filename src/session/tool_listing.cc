#include "session/tool_listing.h"

#include <nlohmann/json.hpp>

namespace ikigai::session {

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

}  // namespace ikigai::session
