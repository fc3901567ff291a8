#include "base/todos.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "base/format.h"
#include "base/io.h"
#include "base/unique_fd.h"

namespace ikigai::todos {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxFileBytes = 1 << 20;

bool IsStatus(const std::string& status) {
  return status == "pending" || status == "in_progress" || status == "completed";
}

}  // namespace

std::string TodosPath() {
  if (const char* file = std::getenv("IKIGAI_TODOS_FILE"); file != nullptr && *file != '\0') {
    return file;
  }
  const char* dir = std::getenv("IKIGAI_SESSION_DIR");
  return dir == nullptr || *dir == '\0' ? "" : std::string(dir) + "/todos.json";
}

Result<std::vector<Todo>, std::string> ParseTodos(const json& todos) {
  if (!todos.is_array()) return Err(std::string("todos must be an array of {content, status}"));
  if (todos.size() > kMaxTodos) {
    return Err("todos has " + std::to_string(todos.size()) + " items; keep the plan to " +
               std::to_string(kMaxTodos) + " at most");
  }
  std::vector<Todo> list;
  for (std::size_t i = 0; i < todos.size(); ++i) {
    const std::string where = "todos[" + std::to_string(i) + "]";
    const json& item = todos[i];
    if (!item.is_object()) return Err(where + " must be an object {content, status}");
    const json content = item.value("content", json());
    const json status = item.value("status", json());
    if (!content.is_string() || IsBlank(content.get<std::string>())) {
      return Err(where + ".content must be a non-empty string: what is to be done");
    }
    if (content.get<std::string>().size() > kMaxContentBytes) {
      return Err(where + ".content is longer than " + std::to_string(kMaxContentBytes) +
                 " bytes: say it in a line");
    }
    if (!status.is_string() || !IsStatus(status.get<std::string>())) {
      return Err(where + ".status must be pending, in_progress or completed, got " +
                 status.dump(-1, ' ', false, json::error_handler_t::replace));
    }
    list.push_back({content.get<std::string>(), status.get<std::string>()});
  }
  return list;
}

json TodosJson(const std::vector<Todo>& todos) {
  json list = json::array();
  for (const Todo& todo : todos)
    list.push_back({{"content", todo.content}, {"status", todo.status}});
  return list;
}

std::vector<Todo> ReadTodos(const std::string& path) {
  if (path.empty()) return {};
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::string text;
  if (!fd.valid() || !ReadAll(fd.get(), text, kMaxFileBytes)) return {};
  const json file = json::parse(text, nullptr, false);
  if (!file.is_object() || !file.contains("todos")) return {};
  auto todos = ParseTodos(file["todos"]);
  return todos ? std::move(*todos) : std::vector<Todo>{};
}

std::vector<std::string> ChecklistLines(const std::vector<Todo>& todos) {
  std::vector<std::string> lines;
  for (const Todo& todo : todos) {
    const char* box = todo.status == "completed"     ? "[x] "
                      : todo.status == "in_progress" ? "[>] "
                                                     : "[ ] ";
    std::string content = todo.content;
    for (char& c : content) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    lines.push_back(box + content);
  }
  return lines;
}

std::string PlanForModel(const std::vector<Todo>& todos) {
  bool open = false;
  for (const Todo& todo : todos) open = open || todo.status != "completed";
  if (!open) return "";
  std::string text = "The plan (todo_write) as it stood:\n";
  for (const std::string& line : ChecklistLines(todos)) text += line + "\n";
  return text + "([x] completed, [>] in progress, [ ] pending; update it with todo_write.)";
}

std::optional<std::vector<Todo>> PlanWatcher::Changed() {
  std::vector<Todo> now = ReadTodos(path_);
  if (now == seen_) return std::nullopt;
  seen_ = now;
  return now;
}

void PlanWatcher::Forget() {
  if (!path_.empty()) ::unlink(path_.c_str());
  seen_.clear();
}

}  // namespace ikigai::todos
