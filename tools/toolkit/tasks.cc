#include "toolkit/tasks.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "base/unique_fd.h"
#include "base/utf8.h"
#include "toolkit/error_codes.h"

namespace ikigai::toolkit {
namespace {

using std::chrono::milliseconds;

// How often a wait looks at the status without an inotify event.
constexpr milliseconds kPollInterval{250};
// An id is shown at most this long in a message.
constexpr std::size_t kShownIdBytes = 100;
constexpr milliseconds kAnswerMargin{500};

ToolError NotFound(std::string_view tool, const std::string& task_id, std::string_view why = "") {
  std::string shown = utf8::Repair(task_id);
  if (shown.size() > kShownIdBytes) {
    shown.resize(utf8::SafePrefixLength(shown, kShownIdBytes));
    shown += "...";
  }
  return {code::kNotFound, "Task not found: " + shown + ". " + std::string(why) +
                               std::string(tool) +
                               " takes a task_id that bash with run_in_background or task with "
                               "background returned in this session."};
}

int PollTimeout(Clock::time_point until) {
  if (until == Clock::time_point::max()) return static_cast<int>(kPollInterval.count());
  const auto left = std::chrono::ceil<milliseconds>(until - Clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, kPollInterval.count()));
}

}  // namespace

Result<std::string, ToolError> FindTask(std::string_view tool, const std::string& task_id) {
  if (!tasks::ValidTaskId(task_id)) {
    return Err(NotFound(tool, task_id,
                        "A task id is a word, an underscore and eight hex digits (bg_1a2b3c4d). "));
  }
  const std::string tasks_dir = tasks::TasksDirectory();
  if (tasks_dir.empty()) {
    return Err(NotFound(tool, task_id,
                        "This process has no session directory (IKIGAI_SESSION_DIR), which "
                        "ikigai gives every tool: tasks exist only within an ikigai session. "));
  }
  const std::string task_dir = tasks_dir + "/" + task_id;
  std::error_code error;
  if (!std::filesystem::exists(task_dir + "/status.json", error))
    return Err(NotFound(tool, task_id));
  return task_dir;
}

bool OwnerGone(const std::string& task_dir) {
  // Opening a FIFO for writing without blocking fails with ENXIO when no
  // process has it open for reading. Nothing is written.
  UniqueFd probe(::open((task_dir + "/control").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  if (probe.valid() || (errno != ENXIO && errno != ENOENT)) return false;
  auto status = tasks::ReadStatus(task_dir);
  return status && !status->Ended();
}

Result<tasks::TaskStatus, std::string> WaitForEnd(const std::string& task_dir,
                                                  Clock::time_point until) {
  // Watched before the first look, so that an end recorded in between
  // still wakes the wait.
  UniqueFd watch(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (watch.valid() &&
      ::inotify_add_watch(watch.get(), task_dir.c_str(), IN_MOVED_TO | IN_DELETE_SELF) < 0) {
    watch.Reset();
  }
  for (;;) {
    auto status = tasks::ReadStatus(task_dir);
    if (!status || status->Ended() || Clock::now() >= until) return status;
    if (OwnerGone(task_dir)) return tasks::ReadStatus(task_dir);
    if (watch.valid()) {
      pollfd fd{watch.get(), POLLIN, 0};
      if (::poll(&fd, 1, PollTimeout(until)) > 0) {
        alignas(inotify_event) char events[4096];
        while (::read(watch.get(), events, sizeof events) > 0) {
        }
      }
    } else {
      ::usleep(static_cast<useconds_t>(PollTimeout(until)) * 1000);
    }
  }
}

Clock::time_point LatestAnswer(const CallContext& context) {
  if (!context.deadline) return Clock::time_point::max();
  const auto left = std::max(Clock::duration::zero(), *context.deadline - Clock::now());
  return *context.deadline - std::min<Clock::duration>(kAnswerMargin, left / 5);
}

}  // namespace ikigai::toolkit
