// `ikigai tool check PATH...`: a checker for tool authors.
//
// Runs the protocol of docs/tool-protocol.md against an executable and
// reports each rule kept or broken: the file's name, --schema within 1 s and
// 8 KB, one valid schema whose name matches the file, a JSON answer (and
// exit 0) to `{}` and to malformed input, output within the call limits.
// The three runs happen at once, as the host would run them.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "executor/executor.h"

namespace ikigai::toolcmd {

struct RuleResult {
  bool kept;
  std::string rule;    // what the protocol asks
  std::string detail;  // what was seen
};

// `schema_timeout`: discovery's deadline for --schema (schema_timeout_ms).
std::vector<RuleResult> CheckTool(
    const std::string& path, const executor::Limits& limits,
    std::chrono::milliseconds schema_timeout = std::chrono::milliseconds(1000));

// Prints the results of every path; returns 1 if any rule is broken.
int CheckTools(const std::vector<std::string>& paths, const executor::Limits& limits,
               std::ostream& out,
               std::chrono::milliseconds schema_timeout = std::chrono::milliseconds(1000));

}  // namespace ikigai::toolcmd
