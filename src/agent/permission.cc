#include "agent/permission.h"

namespace ikigai::agent {

Permission PermissionPolicy::Decide(const providers::ToolCall&, const registry::Tool*) {
  return {true, ""};
}

}  // namespace ikigai::agent
