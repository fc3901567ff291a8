// The tools ikigai knows, by name: an immutable snapshot.
//
// Discovery builds a new Registry; the host swaps its shared pointer
// (RegistryHolder). A call in progress keeps the snapshot (and so the tool
// entry) it started with, so a refresh never disturbs running calls.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/schema.h"

namespace ikigai::registry {

// kMcp: a tool of an MCP server (mcpclient/), called through the
// executor's RemoteTools rather than run as a process; kHost: a tool the
// host itself answers (the `skill` tool, skills/skill_session.h), called
// through the executor's host_tools.
enum class Source { kSystem, kUser, kProject, kMcp, kHost };

struct Tool {
  std::string name;  // from the file name: file-read-tool -> file_read
  std::string path;  // the executable; for kMcp "mcp:SERVER"
  Source source;
  protocol::ToolSchema schema;
  std::vector<std::string> warnings;  // e.g. the schema's name disagrees with the file's
  // kMcp: the server's name and the tool's own name there.
  std::string mcp_server = {};
  std::string mcp_tool = {};
};

struct DiscoveryFailure {
  std::string name;
  std::string path;
  std::string reason;       // "timeout", "exit code 3", "invalid JSON: ...", ...
  std::string detail = {};  // the last line the tool wrote on stderr, if any
};

class Registry {
 public:
  Registry() = default;
  Registry(std::vector<Tool> tools, std::vector<DiscoveryFailure> failures);

  const std::vector<Tool>& tools() const { return tools_; }  // sorted by name
  const std::vector<DiscoveryFailure>& failures() const { return failures_; }
  const Tool* Find(std::string_view name) const;

 private:
  std::vector<Tool> tools_;
  std::vector<DiscoveryFailure> failures_;
};

// Holds the current snapshot; safe to read and replace from any thread.
class RegistryHolder {
 public:
  std::shared_ptr<const Registry> Get() const;
  void Set(std::shared_ptr<const Registry> registry);

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Registry> current_ = std::make_shared<Registry>();
};

}  // namespace ikigai::registry
