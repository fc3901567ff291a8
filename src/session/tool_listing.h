// The tools as a user sees them, the same from `ikigai tool list|show` and
// the REPL's /tool: the listing, one tool's schema, discovery problems.
#pragma once

#include <ostream>
#include <string>

#include "session/host_context.h"

namespace ikigai::session {

// "Available tools:" then "  name (path)" lines (seeds/002 /tool), then
// discovery failures and warnings as "Debug: ..." lines.
int ListTools(const HostContext& host, std::ostream& out);

// "Tool:", "Path:", "Schema:" (seeds/002 /tool NAME); an unknown name is an
// error naming it, exit 1.
int ShowTool(const HostContext& host, const std::string& name, std::ostream& out,
             std::ostream& err);

// The listing's discovery problems, one "Debug: ..." line each.
void PrintDiscoveryProblems(const registry::Registry& registry, std::ostream& out);

}  // namespace ikigai::session
