#include "agent/tool_specs.h"

namespace ikigai::agent {

std::vector<providers::ToolSpec> ToolSpecs(const registry::Registry& registry) {
  std::vector<providers::ToolSpec> specs;
  for (const auto& tool : registry.tools()) {
    // The wrapper every result comes in (seeds/001), told for every tool,
    // with the tool's own "returns" when it declares one.
    std::string description = tool.schema.description +
                              "\nResult (inside {\"tool_success\": true, \"result\": ...}): " +
                              (tool.schema.returns.is_null() ? std::string("the tool's JSON object")
                                                             : tool.schema.returns.dump());
    specs.push_back({tool.name, std::move(description), tool.schema.parameters});
  }
  return specs;
}

}  // namespace ikigai::agent
