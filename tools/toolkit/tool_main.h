// The protocol every ikigai tool speaks, in one place.
//
//   TOOL --schema          prints the schema (one JSON object) and exits 0.
//   TOOL < args.json       reads stdin to EOF (at most 16 MB), validates it
//                          against the schema, runs the tool, prints exactly
//                          one JSON object (valid UTF-8, no trailing newline)
//                          and exits 0, whether the operation worked or not.
//
// A tool is a schema plus a function from checked arguments to an answer.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "toolkit/args.h"
#include "toolkit/json.h"

namespace ikigai::toolkit {

using Clock = std::chrono::steady_clock;

inline constexpr std::size_t kMaxInputBytes = 16 * 1024 * 1024;

struct CallContext {
  Clock::time_point start;
  // When the host will kill the tool (IKIGAI_TOOL_DEADLINE_MS after start),
  // if it said so.
  std::optional<Clock::time_point> deadline;
};

struct ToolDefinition {
  std::string_view schema;  // the --schema JSON text
  Json (*run)(const Args& args, const CallContext& context);
};

int RunTool(int argc, char** argv, const ToolDefinition& tool);

// Parses IKIGAI_TOOL_DEADLINE_MS (a positive integer); nullopt if absent or bad.
std::optional<Clock::time_point> DeadlineFromEnvironment(Clock::time_point start);

}  // namespace ikigai::toolkit
