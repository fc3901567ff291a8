#include "session/tool_listing.h"

#include <nlohmann/json.hpp>

#include "base/visible_text.h"

namespace ikigai::session {
namespace {

// Names, paths and a tool's own words on one line, controls made visible.
std::string V(const std::string& text) { return VisibleText(text, Layout::kOneLine); }

}  // namespace

void PrintDiscoveryProblems(const registry::Registry& registry, std::ostream& out) {
  for (const auto& failure : registry.failures()) {
    if (failure.name.empty()) {  // a whole directory
      out << "Debug: tool directory " << V(DisplayPath(failure.path)) << " skipped ("
          << V(failure.reason) << ")\n";
      continue;
    }
    out << "Debug: tool '" << V(failure.name) << "' schema failed (" << V(failure.reason);
    if (!failure.detail.empty()) out << ": " << V(failure.detail);
    out << ")\n";
  }
  for (const auto& tool : registry.tools()) {
    for (const auto& warning : tool.warnings) {
      out << "Debug: tool '" << V(tool.name) << "': " << V(warning) << "\n";
    }
  }
}

int ListTools(const HostContext& host, std::ostream& out) {
  out << "Available tools:\n";
  for (const auto& tool : host.registry->tools()) {
    out << "  " << V(tool.name) << " (" << V(DisplayPath(tool.path)) << ")\n";
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
    err << "Unknown tool: '" << V(name) << "'\n"
        << "Use /tool to see available tools.\n";
    return 1;
  }
  out << "Tool: " << V(tool->name) << "\n"
      << "Path: " << V(DisplayPath(tool->path)) << "\n"
      << "Schema:\n"
      << PrettySchema(tool->schema) << "\n";
  for (const auto& warning : tool->warnings) out << "Warning: " << V(warning) << "\n";
  return 0;
}

}  // namespace ikigai::session
