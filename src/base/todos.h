// The agent's plan (DECISIONS §9): the todo_write tool keeps it in a file
// of the session, the host shows it when it changes and carries it over a
// compaction. Both sides read and check it here, so they cannot disagree.
//
// The file is {"todos": [{"content": "...", "status": "pending" |
// "in_progress" | "completed"}]}, at $IKIGAI_TODOS_FILE, else
// $IKIGAI_SESSION_DIR/todos.json (a subagent, which shares its parent's
// session directory, is given a file of its own).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace ikigai::todos {

struct Todo {
  std::string content;
  std::string status;  // pending, in_progress or completed
  bool operator==(const Todo&) const = default;
};

inline constexpr std::size_t kMaxTodos = 100;
inline constexpr std::size_t kMaxContentBytes = 1000;

// Where this process's plan is kept; "" without a session directory.
std::string TodosPath();

// A list of todos, checked; errors name the item and say what is wrong
// ("todos[2].status must be pending, in_progress or completed, got \"done\"").
Result<std::vector<Todo>, std::string> ParseTodos(const nlohmann::json& todos);
nlohmann::json TodosJson(const std::vector<Todo>& todos);

// The plan in the file; empty when there is none (no file, or not a plan).
std::vector<Todo> ReadTodos(const std::string& path);

// "[x] done", "[>] in progress", "[ ] pending", a line each.
std::vector<std::string> ChecklistLines(const std::vector<Todo>& todos);

// The plan as a paragraph for the model (a compaction's summary carries
// it): "" when there is no plan or nothing is left to do.
std::string PlanForModel(const std::vector<Todo>& todos);

// Tells a front end when the plan changed: after each tool call, Changed()
// reads the file again and returns the plan if it is not the one last seen.
class PlanWatcher {
 public:
  explicit PlanWatcher(std::string path = TodosPath()) : path_(std::move(path)) {}
  std::optional<std::vector<Todo>> Changed();
  // Removes the plan (a new conversation).
  void Forget();

 private:
  std::string path_;
  std::vector<Todo> seen_;
};

}  // namespace ikigai::todos
