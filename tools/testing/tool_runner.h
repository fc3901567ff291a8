// Runs a tool executable the way the host does, for tests: JSON in on
// stdin, JSON out on stdout, optionally as an unprivileged user.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toolkit/json.h"

namespace ikigai::testing {

using toolkit::Json;

inline constexpr uid_t kNobody = 65534;

struct RunOptions {
  // Every member has an initializer so that designated initializers can name
  // any subset of them without -Wmissing-field-initializers.
  std::vector<std::string> argv_extra = {};                   // e.g. {"--schema"}
  std::vector<std::pair<std::string, std::string>> env = {};  // added to the environment
  std::string cwd = {};                                       // empty: inherit
  std::optional<uid_t> as_user = {};                          // drop privileges to this uid/gid
  std::chrono::milliseconds timeout{60000};
};

struct ToolRun {
  int exit_code = -1;  // -1 if killed by a signal
  int term_signal = 0;
  std::string out;  // stdout as printed
  std::string err;
  Json json;  // parsed stdout, or discarded if it is not one JSON value
  double seconds = 0;
  long max_rss_kb = 0;  // peak resident memory of the process
};

std::string ToolPath(const std::string& name);  // "file-read" -> .../file-read-tool

// Runs an executable with `input` on stdin.
ToolRun RunExecutable(const std::string& path, const std::string& input,
                      const RunOptions& options = {});
ToolRun RunTool(const std::string& name, const Json& args, const RunOptions& options = {});
ToolRun RunToolRaw(const std::string& name, const std::string& input,
                   const RunOptions& options = {});

// A temporary directory, removed with everything in it on destruction.
// World-readable so that a test running a tool as nobody can reach it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& content, int mode = 0644);
std::string ReadFile(const std::string& path);
std::vector<std::string> ListDir(const std::string& path);

}  // namespace ikigai::testing
