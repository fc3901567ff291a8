#include "agent/tool_specs.h"

namespace ikigai::agent {

std::vector<providers::ToolSpec> ToolSpecs(const registry::Registry& registry) {
  std::vector<providers::ToolSpec> specs;
  for (const auto& tool : registry.tools()) {
    std::string description = tool.schema.description;
    if (!tool.schema.returns.is_null()) {
      description += "\nResult (inside {\"tool_success\": true, \"result\": ...}): " +
                     tool.schema.returns.dump();
    }
    specs.push_back({tool.name, std::move(description), tool.schema.parameters});
  }
  return specs;
}

}  // namespace ikigai::agent
