// The stdio transport: an MCP server as a child process, one JSON-RPC
// message per line on its stdin and stdout (MCP "stdio" transport).
//
// The process is started with the project's spawner (own process group, the
// environment given, optionally a sandbox's pre-exec step). One thread reads
// its stdout and stderr and notices its exit (a pidfd): each stdout line is
// parsed and handed to on_message; a line that is not JSON is a broken
// server (stdout is reserved for the protocol) and ends the connection with
// that line quoted. stderr is kept, its last lines only, for the message
// that says why a server stopped.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "mcpclient/transport.h"

namespace ikigai::mcpclient {

struct StdioCommand {
  std::string command;  // a path, or a name looked up in the env's PATH
  std::vector<std::string> args;
  std::vector<std::string> env;      // the whole environment, "NAME=value"
  std::string cwd;                   // empty: the host's
  int (*pre_exec)(void*) = nullptr;  // the sandbox (spawning::SpawnRequest)
  void* pre_exec_context = nullptr;
};

// `command` as an executable path: as is when it holds a "/", else the first
// executable file of that name in `path` (a PATH value); empty if none.
std::string FindExecutable(const std::string& command, const std::string& path);

class StdioTransport : public Transport {
 public:
  explicit StdioTransport(StdioCommand command) : command_(std::move(command)) {}
  ~StdioTransport() override { Close(); }

  Result<bool, std::string> Start(TransportEvents events) override;
  Result<bool, std::string> Send(const nlohmann::json& message) override;
  // Kills the process group, waits for the reader. Not from an event callback.
  void Close() override;

  // The last lines the server wrote on stderr (at most a few hundred bytes).
  std::string StderrTail() const;
  pid_t pid() const { return pid_; }

 private:
  void ReadLoop();
  void HandleStdout(std::string_view chunk);
  void KeepStderr(std::string_view chunk);

  StdioCommand command_;
  TransportEvents events_;
  pid_t pid_ = -1;
  UniqueFd stdin_fd_, stdout_fd_, stderr_fd_, pidfd_;
  UniqueFd wake_read_, wake_write_;
  std::thread reader_;
  std::mutex lifecycle_mutex_;  // Start against Close from another thread
  std::mutex send_mutex_;
  mutable std::mutex stderr_mutex_;
  std::string stderr_tail_;
  std::string line_;    // the stdout line being read
  std::string broken_;  // why the reader stopped early ("" while fine)
  std::atomic<bool> closing_ = false;
  std::once_flag close_once_;
};

}  // namespace ikigai::mcpclient
