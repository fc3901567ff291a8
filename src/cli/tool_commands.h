// `ikigai tool list|show|call|check`: the tool system without any LLM.
//
// Each command writes to the given streams and returns the process exit
// code, so tests can run it in-process; cli/main.cc wires them to CLI11.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/host_context.h"

namespace ikigai::cli {

// "Available tools:" then "  name (path)" lines (seeds/002 /tool), then
// discovery failures and warnings as "Debug: ..." lines.
int ListTools(const HostContext& host, std::ostream& out);

// "Tool:", "Path:", "Schema:" (seeds/002 /tool NAME); an unknown name is an
// error naming it, exit 1.
int ShowTool(const HostContext& host, const std::string& name, std::ostream& out,
             std::ostream& err);

// Calls a tool with `arguments` (JSON text) and prints the wrapper the model
// would see; exit 0 when tool_success is true, 1 otherwise.
int CallTool(const HostContext& host, const std::string& name, const std::string& arguments,
             std::ostream& out);

// The listing's discovery problems, one "Debug: ..." line each.
void PrintDiscoveryProblems(const registry::Registry& registry, std::ostream& out);

}  // namespace ikigai::cli
