// The tool's side of a background command: prepare the task, start the
// supervisor, answer. The supervisor itself is in supervisor.cc.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "background.h"
#include "base/task_files.h"
#include "base/unique_fd.h"
#include "base/utf8.h"
#include "spawn.h"
#include "spawning/spawn.h"

namespace ikigai::bash_tool {
namespace {

// What status.json keeps of the command (its "description").
constexpr std::size_t kDescriptionBytes = 500;

// The supervisor's stdin is the control FIFO, its stdout and stderr
// /dev/null. Runs between clone and exec: system calls only.
struct SupervisorStdio {
  int control;
  int null;
};

int ConnectSupervisorStdio(void* context) {
  const auto* fds = static_cast<const SupervisorStdio*>(context);
  if (::dup2(fds->control, STDIN_FILENO) < 0 || ::dup2(fds->null, STDOUT_FILENO) < 0 ||
      ::dup2(fds->null, STDERR_FILENO) < 0) {
    return errno;
  }
  return 0;
}

Result<std::string, std::string> NewTaskDirectory(const std::string& tasks_dir) {
  // Eight random hex digits rarely meet; when they do, draw again.
  for (int attempt = 0;; ++attempt) {
    const std::string id = tasks::NewTaskId("bg");
    std::error_code error;
    if (std::filesystem::exists(tasks_dir + "/" + id, error) && attempt < 5) continue;
    return tasks::CreateTaskDirectory(tasks_dir, id);
  }
}

BackgroundError Failure(std::string message) { return {false, std::move(message)}; }

}  // namespace

std::string CommandSummary(std::string_view command, std::size_t max_bytes) {
  std::string text = utf8::Repair(command);
  if (text.size() <= max_bytes) return text;
  text.resize(utf8::SafePrefixLength(text, max_bytes));
  return text + "...";
}

Result<BackgroundTask, BackgroundError> StartBackground(const BackgroundRequest& request) {
  const std::string tasks_dir = tasks::TasksDirectory();
  if (tasks_dir.empty()) {
    return Err(BackgroundError{
        true,
        "run_in_background needs an ikigai session: background tasks live in the session's "
        "directory, IKIGAI_SESSION_DIR, which ikigai gives every tool, and it is not set here. "
        "Run the command in the foreground (without run_in_background), or through ikigai."});
  }
  auto dir = NewTaskDirectory(tasks_dir);
  if (!dir) return Err(Failure("Cannot start a background task: " + dir.error() + "."));
  const std::string task_dir = *dir;
  const std::string task_id = std::filesystem::path(task_dir).filename().string();
  // Nothing of a task whose start failed may stay: its id was never given.
  const auto abandon = [&task_dir](std::string why) {
    std::error_code ignored;
    std::filesystem::remove_all(task_dir, ignored);
    return Err(Failure("Cannot start a background task: " + why +
                       ". The system may be out of processes, memory or disk space; try again "
                       "later, or run the command in the foreground."));
  };

  const std::string output_file = task_dir + "/output";
  {
    UniqueFd output(::open(output_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!output.valid())
      return abandon("cannot create " + output_file + ": " + std::strerror(errno));
  }
  // Written before the supervisor starts, which writes only the end: the
  // task is "running" from the answer on, and a quick end is never
  // overwritten by it.
  tasks::TaskStatus status;
  status.task_id = task_id;
  status.kind = "bash";
  status.description = CommandSummary(request.command, kDescriptionBytes);
  status.status = tasks::kRunning;
  status.started_ms = tasks::NowMs();
  if (auto written = tasks::WriteStatus(task_dir, status); !written)
    return abandon(written.error());

  // O_RDWR: opening a FIFO so never waits for the other end.
  UniqueFd control(::open((task_dir + "/control").c_str(), O_RDWR | O_CLOEXEC));
  if (!control.valid())
    return abandon("cannot open its control FIFO: " + std::string(std::strerror(errno)));
  UniqueFd null(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  if (!null.valid()) return abandon("cannot open /dev/null: " + std::string(std::strerror(errno)));
  SupervisorStdio stdio{control.get(), null.get()};

  const long long timeout_ms =
      request.timeout
          ? std::chrono::duration_cast<std::chrono::milliseconds>(*request.timeout).count()
          : 0;
  spawning::SpawnRequest spawn;
  // The running executable, even if its file was replaced since.
  spawn.path = "/proc/self/exe";
  spawn.argv = {"bash-tool",
                std::string(kSupervisorMode),
                task_dir,
                request.working_directory,
                std::to_string(timeout_ms),
                request.command};
  spawn.env = spawning::EnvironmentWith({}, {"IKIGAI_TOOL_DEADLINE_MS"});
  spawn.pipe_stdin = false;
  // Out of the tool's process group, which the host kills as the tool exits.
  spawn.new_session = true;
  spawn.merge_stderr = true;
  spawn.pre_exec = ConnectSupervisorStdio;
  spawn.pre_exec_context = &stdio;
  auto child = spawning::Spawn(spawn);
  if (!child) return abandon("cannot start its supervisor (" + child.error() + ")");
  // setsid in the child made its pid the session's id. The supervisor is
  // not waited for: it outlives the tool, and its new parent (the host, a
  // subreaper, or init) reaps it.
  RegisterWithHost(child->pid);
  return BackgroundTask{task_id, output_file};
}

}  // namespace ikigai::bash_tool
