// The names MCP tools get in ikigai: mcp__SERVER__TOOL (DECISIONS §10).
//
// Providers accept tool names of [A-Za-z0-9_-], at most 64 characters. Each
// part is mapped to that alphabet (anything else becomes "_"); a name too
// long, or one two tools would share, is cut and ends in 12 hex digits of
// the SHA-1 of the raw server and tool names, so it stays stable across
// sessions and distinct.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ikigai::mcpclient {

inline constexpr std::size_t kMaxToolName = 64;

// Each character outside [A-Za-z0-9_-] replaced by "_".
std::string SafePart(std::string_view raw);

struct RawToolName {
  std::string server;
  std::string tool;
};

// The names of these tools, in the same order, all distinct.
std::vector<std::string> ToolNames(const std::vector<RawToolName>& tools);

// 12 hex digits of the SHA-1 of `server` NUL `tool`.
std::string NameHash(std::string_view server, std::string_view tool);

}  // namespace ikigai::mcpclient
