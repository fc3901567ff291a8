// What task_output and kill_shell share about background tasks (DECISIONS
// §8): finding a task by its id, and waiting for it to end. The tasks
// themselves are files in the session's directory (src/base/task_files.h),
// whoever owns them: a bash command's supervisor, or the host for a
// subagent. Both kinds are read the same way.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/task_files.h"
#include "toolkit/tool_error.h"
#include "toolkit/tool_main.h"

namespace ikigai::toolkit {

// The task's directory. An id that names no task of this session (unknown,
// malformed, or no session at all) is NOT_FOUND, in seed 004's words ("Task
// not found: X"), followed by what `tool` (the asking tool's name) knows.
Result<std::string, ToolError> FindTask(std::string_view tool, const std::string& task_id);

// Whether the task's owner has ended without recording the task's end: a
// task still running whose control FIFO nobody reads (the owner holds it
// open from before the task's start to after its end is recorded). Reads
// the status again after the look, so that an end recorded meanwhile is not
// taken for a lost owner.
bool OwnerGone(const std::string& task_dir);

// Waits until the task has recorded its end, or until `until`: it wakes
// when status.json is renamed into place (inotify on the task's directory)
// and also looks every so often, should inotify be unavailable. Returns the
// last status read (still running if its owner is gone: see OwnerGone);
// an error if it cannot be read (the task's directory was
// removed: the session ended).
Result<tasks::TaskStatus, std::string> WaitForEnd(const std::string& task_dir,
                                                  Clock::time_point until);

// The latest a tool may wait and still answer before the host's deadline:
// a margin of half a second (a fifth of what is left, when less) before it.
// Clock::time_point::max() without a deadline.
Clock::time_point LatestAnswer(const CallContext& context);

}  // namespace ikigai::toolkit
