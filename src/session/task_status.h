// What the REPL says about the session's background work: /tasks lists
// every background command and subagent; /status sums up the subagents.
#pragma once

#include <string>
#include <vector>

#include "base/task_files.h"
#include "subagents/subagent_service.h"

namespace ikigai::session {

// One line per task, oldest first: id, kind, status (with the exit code
// once ended), age, what it runs; or a line saying there are none.
std::string TasksListing(const std::vector<tasks::TaskStatus>& tasks, long long now_ms);

// "Subagents: 2 running, 1 waiting, 3 finished; 12,400 tokens in, 800 out\n",
// or "" when the session has started none.
std::string SubagentStatus(const subagents::SubagentSummary& summary);

}  // namespace ikigai::session
