// `ikigai tool call`: a tool called by hand, without any LLM (`tool list`
// and `tool show` are session/tool_listing.h, shared with the REPL).
//
// Each command writes to the given streams and returns the process exit
// code, so tests can run it in-process; cli/main.cc wires them to CLI11.
#pragma once

#include <ostream>
#include <string>

#include "session/host_context.h"

namespace ikigai::toolcmd {

// Calls a tool with `arguments` (JSON text) and prints the wrapper the model
// would see; exit 0 when tool_success is true, 1 otherwise. Confined when
// the host has a sandbox (`--sandbox`).
int CallTool(const session::HostContext& host, const std::string& name,
             const std::string& arguments, std::ostream& out);

}  // namespace ikigai::toolcmd
