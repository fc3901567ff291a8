// For tests of background tasks (bash's run_in_background, task_output,
// kill_shell): a session directory of their own, the tools run in it, and
// waits on conditions rather than on time, with generous limits for a busy
// machine.
#pragma once

#include <dirent.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "base/task_files.h"
#include "testing/tool_runner.h"

namespace ikigai::testing {

inline constexpr std::chrono::seconds kGenerous{30};

// Waits until `condition` holds, looking every 10 ms; false after `limit`.
inline bool Eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = kGenerous) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The live (not zombie) processes whose process group, or session, is `id`.
inline std::vector<pid_t> LiveProcessesOf(pid_t id, bool session) {
  std::vector<pid_t> live;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return live;
  while (dirent* entry = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    std::string stat;
    try {
      stat = ReadFile("/proc/" + std::string(entry->d_name) + "/stat");
    } catch (...) {
      continue;  // exited meanwhile
    }
    // pid (comm) state ppid pgrp session ...; comm may hold spaces.
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    char state = 0;
    int ppid = 0, pgrp = 0, sid = 0;
    if (std::sscanf(stat.c_str() + paren + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4) {
      continue;
    }
    if ((session ? sid : pgrp) == id && state != 'Z' && state != 'X') live.push_back(pid);
  }
  ::closedir(proc);
  return live;
}

// How many live processes of session `sid` are named `name` (their comm).
inline std::size_t CountNamed(pid_t sid, const std::string& name) {
  std::size_t n = 0;
  for (pid_t pid : LiveProcessesOf(sid, true)) {
    try {
      if (ReadFile("/proc/" + std::to_string(pid) + "/comm") == name + "\n") ++n;
    } catch (...) {
    }
  }
  return n;
}

// A session directory, as the host makes one, and the tools run within it.
// On destruction, every task still running is stopped (the directory's
// removal ends its supervisor and command too).
class TaskSession {
 public:
  ~TaskSession() {
    for (const auto& id : TaskIds()) ikigai::tasks::SendKill(TaskDir(id));
  }
  const std::string& dir() const { return dir_.path(); }
  std::string TaskDir(const std::string& id) const { return dir() + "/tasks/" + id; }
  RunOptions Options() const { return {.env = {{"IKIGAI_SESSION_DIR", dir()}}}; }

  ToolRun Tool(const std::string& name, const Json& args) const {
    return RunTool(name, args, Options());
  }
  // Starts `command` in the background; the task's id ("" on failure, with
  // the test failed).
  std::string Start(const std::string& command, Json extra = Json::object()) const {
    extra["command"] = command;
    extra["run_in_background"] = true;
    const ToolRun run = Tool("bash", extra);
    EXPECT_EQ(run.json.value("status", ""), "running") << run.out << run.err;
    return run.json.value("task_id", "");
  }
  Json Output(const std::string& id, Json extra = Json::object()) const {
    extra["task_id"] = id;
    return Tool("task_output", extra).json;
  }
  Json Kill(const std::string& id) const { return Tool("kill_shell", {{"task_id", id}}).json; }
  std::string Status(const std::string& id) const {
    auto status = ikigai::tasks::ReadStatus(TaskDir(id));
    return status ? status->status : "<" + status.error() + ">";
  }
  // The command's process group, from the supervisor's registration: the
  // supervisor's session, which holds the supervisor and the command.
  pid_t SupervisorSession() const {
    try {
      const auto names = ListDir(dir() + "/process-groups");
      return names.size() == 1 ? static_cast<pid_t>(std::atoi(names[0].c_str())) : 0;
    } catch (...) {
      return 0;
    }
  }
  std::vector<std::string> TaskIds() const {
    try {
      return ListDir(dir() + "/tasks");
    } catch (...) {
      return {};
    }
  }

 private:
  TempDir dir_;
};

}  // namespace ikigai::testing
