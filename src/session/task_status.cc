#include "session/task_status.h"

#include <chrono>

#include "base/format.h"
#include "base/visible_text.h"

namespace ikigai::session {

std::string TasksListing(const std::vector<tasks::TaskStatus>& tasks, long long now_ms) {
  if (tasks.empty()) {
    return "No background tasks in this session (bash with run_in_background, or task with "
           "background: true, starts one).\n";
  }
  std::string text;
  for (const tasks::TaskStatus& task : tasks) {
    std::string status = task.status;
    if (task.exit_code) status += " (exit " + std::to_string(*task.exit_code) + ")";
    const long long age_ms = std::max(0LL, now_ms - task.started_ms);
    std::string line = task.task_id + "  " + task.kind + "  " + status + "  " +
                       FormatDuration(std::chrono::milliseconds(age_ms)) + " ago  " +
                       VisibleText(task.description, Layout::kOneLine);
    text += line + "\n";
  }
  return text;
}

std::string SubagentStatus(const subagents::SubagentSummary& summary) {
  if (summary.running + summary.waiting + summary.finished == 0) return "";
  return "Subagents: " + std::to_string(summary.running) + " running, " +
         std::to_string(summary.waiting) + " waiting, " + std::to_string(summary.finished) +
         " finished; " + FormatCount(summary.usage.TotalInput()) + " tokens in, " +
         FormatCount(summary.usage.output_tokens) + " out\n";
}

}  // namespace ikigai::session
