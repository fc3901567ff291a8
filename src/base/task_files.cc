#include "base/task_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "base/io.h"
#include "base/unique_fd.h"

namespace ikigai::tasks {
namespace {

using nlohmann::json;

std::string Hex8() {
  std::random_device device;
  std::uniform_int_distribution<unsigned> digits(0, 0xffffffffu);
  char text[9];
  std::snprintf(text, sizeof text, "%08x", digits(device));
  return text;
}

}  // namespace

std::string TasksDirectory() {
  const char* session = std::getenv("IKIGAI_SESSION_DIR");
  if (session == nullptr || *session != '/') return "";
  return std::string(session) + "/tasks";
}

std::string NewTaskId(std::string_view prefix) { return std::string(prefix) + "_" + Hex8(); }

bool ValidTaskId(std::string_view id) {
  const auto underscore = id.find('_');
  if (underscore == std::string_view::npos || underscore == 0 || id.size() != underscore + 9) {
    return false;
  }
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  return std::all_of(id.begin(), id.begin() + static_cast<std::ptrdiff_t>(underscore), lower) &&
         std::all_of(id.begin() + static_cast<std::ptrdiff_t>(underscore) + 1, id.end(), hex);
}

Result<std::string, std::string> CreateTaskDirectory(const std::string& tasks_dir,
                                                     const std::string& task_id) {
  if (auto made = MakeDirectories(tasks_dir, 0700); !made) return Err(made.error());
  const std::string dir = tasks_dir + "/" + task_id;
  if (::mkdir(dir.c_str(), 0700) != 0) {
    return Err("cannot create " + dir + ": " + std::strerror(errno));
  }
  if (::mkfifo((dir + "/control").c_str(), 0600) != 0) {
    return Err("cannot create " + dir + "/control: " + std::strerror(errno));
  }
  return dir;
}

Result<bool, std::string> WriteStatus(const std::string& task_dir, const TaskStatus& status) {
  json j = {{"task_id", status.task_id},         {"kind", status.kind},
            {"description", status.description}, {"status", status.status},
            {"started_ms", status.started_ms},   {"ended_ms", status.ended_ms}};
  if (status.exit_code) j["exit_code"] = *status.exit_code;
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string path = task_dir + "/status.json";
  const std::string temp = path + ".new";
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd.valid() || !WriteAll(fd.get(), text) || ::rename(temp.c_str(), path.c_str()) != 0) {
    return Err("cannot write " + path + ": " + std::strerror(errno));
  }
  return true;
}

Result<TaskStatus, std::string> ReadStatus(const std::string& task_dir) {
  UniqueFd fd(::open((task_dir + "/status.json").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return Err(errno == ENOENT ? std::string("no such task") : std::string(std::strerror(errno)));
  }
  std::string text;
  if (!ReadAll(fd.get(), text, 64 * 1024)) return Err(std::string("unreadable status"));
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto string_at = [&j](const char* key) -> std::optional<std::string> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  const auto number_at = [&j](const char* key) -> std::optional<long long> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<long long>();
  };
  if (!j.is_object()) return Err(std::string("unreadable status: not a JSON object"));
  TaskStatus status;
  auto id = string_at("task_id"), kind = string_at("kind"), state = string_at("status");
  if (!id || !kind || !state) return Err(std::string("unreadable status: fields missing"));
  status.task_id = *id;
  status.kind = *kind;
  status.status = *state;
  status.description = string_at("description").value_or("");
  if (auto code = number_at("exit_code")) status.exit_code = static_cast<int>(*code);
  status.started_ms = number_at("started_ms").value_or(0);
  status.ended_ms = number_at("ended_ms").value_or(0);
  return status;
}

std::vector<TaskStatus> ListTasks(const std::string& tasks_dir) {
  std::vector<TaskStatus> all;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(tasks_dir, error)) {
    if (!ValidTaskId(entry.path().filename().string())) continue;
    if (auto status = ReadStatus(entry.path().string())) all.push_back(std::move(*status));
  }
  std::sort(all.begin(), all.end(), [](const TaskStatus& a, const TaskStatus& b) {
    return a.started_ms != b.started_ms ? a.started_ms < b.started_ms : a.task_id < b.task_id;
  });
  return all;
}

bool SendKill(const std::string& task_dir) {
  // Non-blocking: with no reader the open fails (ENXIO) instead of waiting.
  UniqueFd fd(::open((task_dir + "/control").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  return fd.valid() && WriteAll(fd.get(), "kill\n");
}

long long NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ikigai::tasks
