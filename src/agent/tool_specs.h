// The registry's tools as the model sees them: name, parameters, and a
// description that also tells the result's shape: the wrapper every result
// comes in, around the tool's own "returns" when it declares one.
#pragma once

#include <vector>

#include "providers/conversation.h"
#include "registry/registry.h"

namespace ikigai::agent {

std::vector<providers::ToolSpec> ToolSpecs(const registry::Registry& registry);

}  // namespace ikigai::agent
