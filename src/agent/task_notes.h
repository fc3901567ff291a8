// Background tasks that ended while the model worked (DECISIONS §8): the
// next request says so, one line per task, so that the model need not poll
// task_output to learn that the build it started has finished.
//
// EndedTasks looks at the session's task directories (base/task_files.h)
// before each request and returns a line for every task that has ended
// since it last looked, each task once.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "base/task_files.h"

namespace ikigai::agent {

// "Background task bg_1a2b3c4d (npm test) completed with exit code 0."
std::string EndedTaskLine(const tasks::TaskStatus& status);

class EndedTasks {
 public:
  // The session's tasks directory; "" (no session directory): never any.
  // Tasks already ended are not told again (an agent made anew by /clear).
  explicit EndedTasks(std::string tasks_dir);
  std::vector<std::string> Take();

 private:
  std::string tasks_dir_;
  std::set<std::string> reported_;
};

}  // namespace ikigai::agent
