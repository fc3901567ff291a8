#include "agent/task_notes.h"

namespace ikigai::agent {

std::string EndedTaskLine(const tasks::TaskStatus& status) {
  std::string line = "Background " +
                     std::string(status.kind == "subagent" ? "subagent " : "task ") +
                     status.task_id;
  if (!status.description.empty()) line += " (" + status.description + ")";
  line += " " + status.status;
  if (status.exit_code) line += " with exit code " + std::to_string(*status.exit_code);
  return line + "; read its output with task_output.";
}

EndedTasks::EndedTasks(std::string tasks_dir) : tasks_dir_(std::move(tasks_dir)) { Take(); }

std::vector<std::string> EndedTasks::Take() {
  std::vector<std::string> lines;
  if (tasks_dir_.empty()) return lines;
  for (const tasks::TaskStatus& status : tasks::ListTasks(tasks_dir_)) {
    if (status.Ended() && reported_.insert(status.task_id).second) {
      lines.push_back(EndedTaskLine(status));
    }
  }
  return lines;
}

}  // namespace ikigai::agent
