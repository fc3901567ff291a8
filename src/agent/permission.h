// The one place that decides whether a tool call may run.
//
// Every call the model makes passes through Decide before the executor sees
// it. Today everything is allowed; approval prompts and policies
// (DECISIONS §6) will be decided here, using the tool's annotations
// (readOnlyHint, destructiveHint).
#pragma once

#include <string>

#include "providers/conversation.h"
#include "registry/registry.h"

namespace ikigai::agent {

struct Permission {
  bool allowed = true;
  std::string reason;  // why not, for the model
};

class PermissionPolicy {
 public:
  virtual ~PermissionPolicy() = default;
  // `tool` is null when the registry has no such tool (the executor then
  // answers TOOL_NOT_FOUND).
  virtual Permission Decide(const providers::ToolCall& call, const registry::Tool* tool) const;
};

}  // namespace ikigai::agent
