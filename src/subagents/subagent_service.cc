#include "subagents/subagent_service.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "base/format.h"
#include "base/io.h"
#include "base/task_files.h"

namespace ikigai::subagents {
namespace {

using hostapi::MethodResult;
using hostapi::RpcError;
using hostapi::rpc_code::kInvalidParams;
using nlohmann::json;

constexpr std::size_t kDescriptionBytes = 120;

bool Readable(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

// The start of the prompt, on one line, for /tasks and status.json.
std::string Describe(const std::string& prompt) {
  std::string line(Trim(prompt));
  std::replace(line.begin(), line.end(), '\n', ' ');
  if (line.size() <= kDescriptionBytes) return line;
  std::size_t cut = kDescriptionBytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + "...";
}

json ResultJson(const SubagentResult& result) {
  json j = {{"rounds", result.rounds}, {"usage", providers::UsageJson(result.usage)}};
  if (!result.session.empty()) j["session"] = result.session;
  if (result.ok) {
    j["text"] = result.text;
  } else {
    j["error"] = result.error;
    j["error_code"] = result.error_code;
    if (!result.text.empty()) j["text"] = result.text;
  }
  return j;
}

}  // namespace

struct SubagentService::Running {
  std::string id;
  UniqueFd stop_read, stop_write;  // closing stop_write stops it
  // The time cap counts from the request, waiting for a slot included: the
  // tool that asked must have its answer before its own deadline.
  std::chrono::steady_clock::time_point deadline;
  UniqueFd control;  // a background subagent's control FIFO, opened for reading
};

SubagentService::SubagentService(std::function<SubagentSettings()> settings)
    : settings_(std::move(settings)) {}

SubagentService::~SubagentService() {
  std::vector<std::thread> background;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    background.swap(background_);
  }
  StopAll();
  slot_freed_.notify_all();
  for (auto& thread : background) thread.join();
}

MethodResult SubagentService::Call(const std::string& method, const json& params,
                                   const hostapi::CallContext& context) {
  if (!params.is_object()) return Err(RpcError{kInvalidParams, "params must be an object"});
  if (method == "subagent/start") return Start(params, context.cancel_fd);
  if (method == "subagent/stop") return Stop(params);
  return Err(
      RpcError{hostapi::rpc_code::kMethodNotFound, "unknown method " + method +
                                                       ": this host offers elicit, progress, "
                                                       "subagent/start and subagent/stop"});
}

MethodResult SubagentService::Start(const json& params, int cancel_fd) {
  const json prompt = params.value("prompt", json());
  if (!prompt.is_string() || IsBlank(prompt.get<std::string>())) {
    return Err(RpcError{kInvalidParams,
                        "\"prompt\" must be a non-empty string: the task, "
                        "with everything the subagent needs to know"});
  }
  const json background = params.value("background", json(false));
  const json description = params.value("description", json());
  const json timeout = params.value("timeout_ms", json());
  if (!background.is_boolean() || (!timeout.is_null() && !timeout.is_number_unsigned()) ||
      (!description.is_null() && !description.is_string())) {
    return Err(RpcError{kInvalidParams,
                        "\"background\" must be a boolean, \"timeout_ms\" a "
                        "positive integer and \"description\" a string"});
  }
  auto entry = std::make_shared<Running>();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return Err(RpcError{hostapi::rpc_code::kFailed, "out of descriptors: try again later"});
  }
  entry->stop_read.Reset(pipe_fds[0]);
  entry->stop_write.Reset(pipe_fds[1]);
  {
    std::lock_guard lock(mutex_);
    if (closing_) return Err(RpcError{hostapi::rpc_code::kCancelled, "the session is ending"});
    do {
      entry->id = tasks::NewTaskId("task");
    } while (by_id_.contains(entry->id));
    by_id_[entry->id] = entry;
  }
  SubagentSettings settings = settings_();
  if (!timeout.is_null()) {
    settings.time_cap = std::min<std::chrono::milliseconds>(
        settings.time_cap, std::chrono::milliseconds(timeout.get<std::uint64_t>()));
  }
  entry->deadline = std::chrono::steady_clock::now() + settings.time_cap;
  const std::string text = prompt.get<std::string>();

  if (!background.get<bool>()) {
    const SubagentResult result = Run(*entry, settings, text, {cancel_fd});
    json answer = ResultJson(result);
    answer["task_id"] = entry->id;
    return answer;
  }

  const std::string tasks_dir = tasks::TasksDirectory();
  auto made = tasks_dir.empty()
                  ? Result<std::string, std::string>(Err(
                        std::string("this session has no scratch directory (IKIGAI_SESSION_DIR)")))
                  : tasks::CreateTaskDirectory(tasks_dir, entry->id);
  if (made) {
    const bool described = description.is_string() && !IsBlank(description.get<std::string>());
    tasks::TaskStatus status{entry->id,
                             "subagent",
                             Describe(described ? description.get<std::string>() : text),
                             std::string(tasks::kRunning),
                             std::nullopt,
                             tasks::NowMs(),
                             0};
    if (auto written = tasks::WriteStatus(*made, status); !written) made = Err(written.error());
  }
  if (made) {
    // Empty until the subagent answers: task_output reads it as it is.
    UniqueFd output(::open((*made + "/output").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    // kill_shell writes a line on the control FIFO: any line stops it.
    // Opened now, before the answer, so that a kill sent at once finds a
    // reader; for reading and writing, so that it never reads EOF between
    // writers.
    entry->control.Reset(::open((*made + "/control").c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC));
    if (!output.valid() || !entry->control.valid()) {
      made = Err("cannot open the files of " + *made + ": " + std::strerror(errno));
    }
  }
  if (!made) {
    std::lock_guard lock(mutex_);
    by_id_.erase(entry->id);
    return Err(RpcError{hostapi::rpc_code::kFailed,
                        "cannot start a background subagent: " + made.error() +
                            ". Run it in the foreground instead (background: false)."});
  }
  {
    std::lock_guard lock(mutex_);
    JoinEndedLocked();
    try {
      background_.emplace_back([this, entry, text, dir = *made, settings] {
        RunInBackground(entry, settings, text, dir);
        std::lock_guard done(mutex_);
        ended_.push_back(std::this_thread::get_id());
      });
    } catch (const std::system_error&) {
      by_id_.erase(entry->id);
      return Err(RpcError{hostapi::rpc_code::kFailed,
                          "cannot start a thread for a background subagent (the system is out "
                          "of them): try again later, or run it in the foreground"});
    }
  }
  return json{
      {"task_id", entry->id}, {"status", tasks::kRunning}, {"output_file", *made + "/output"}};
}

MethodResult SubagentService::Stop(const json& params) {
  const json id = params.value("task_id", json());
  if (!id.is_string()) return Err(RpcError{kInvalidParams, "\"task_id\" must be a string"});
  std::lock_guard lock(mutex_);
  auto it = by_id_.find(id.get<std::string>());
  if (it == by_id_.end()) {
    return Err(RpcError{hostapi::rpc_code::kFailed,
                        "no running subagent " + id.get<std::string>() +
                            " in this session: it has ended (read its answer with task_output) "
                            "or the id is wrong"});
  }
  it->second->stop_write.Reset();
  return json{{"task_id", it->first}, {"status", "stopping"}};
}

bool SubagentService::Acquire(Running& entry, int cancel_fd) {
  std::unique_lock lock(mutex_);
  ++waiting_;
  bool acquired = false;
  // A stop can only be seen on a descriptor: look every so often.
  while (!closing_ && !Readable(cancel_fd) && !Readable(entry.stop_read.get())) {
    if (running_ < kMaxRunning) {
      acquired = true;
      ++running_;
      break;
    }
    slot_freed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  --waiting_;
  return acquired;
}

void SubagentService::JoinEndedLocked() {
  for (const std::thread::id id : ended_) {
    auto it = std::find_if(background_.begin(), background_.end(),
                           [id](const std::thread& t) { return t.get_id() == id; });
    if (it == background_.end()) continue;
    it->join();  // it has nothing left to do but return
    background_.erase(it);
  }
  ended_.clear();
}

void SubagentService::Release() {
  {
    std::lock_guard lock(mutex_);
    --running_;
    ++finished_;
  }
  slot_freed_.notify_one();
}

SubagentResult SubagentService::Run(Running& entry, const SubagentSettings& settings,
                                    const std::string& prompt, std::vector<int> stop_fds) {
  stop_fds.push_back(entry.stop_read.get());
  SubagentResult result;
  if (!Acquire(entry, stop_fds.front())) {
    result.stopped = true;
    result.error_code = "CANCELLED";
    result.error =
        "the subagent was stopped before it started (the call was cancelled, or kill_shell)";
  } else {
    // What is left of the time cap after the wait for a slot.
    SubagentSettings capped = settings;
    capped.time_cap = std::max(std::chrono::milliseconds(1),
                               std::chrono::duration_cast<std::chrono::milliseconds>(
                                   entry.deadline - std::chrono::steady_clock::now()));
    result = RunSubagent(capped, prompt, stop_fds, [this](const auto& usage) {
      std::lock_guard lock(mutex_);
      usage_ += usage;
    });
    Release();
  }
  std::lock_guard lock(mutex_);
  by_id_.erase(entry.id);
  return result;
}

void SubagentService::RunInBackground(std::shared_ptr<Running> entry, SubagentSettings settings,
                                      std::string prompt, std::string task_dir) {
  const SubagentResult result = Run(*entry, settings, prompt, {entry->control.get()});
  auto status = tasks::ReadStatus(task_dir);
  if (!status) return;  // the session's directory is gone: nobody will read it
  std::string output = result.ok ? result.text
                                 : "Subagent failed (" + result.error_code + "): " + result.error +
                                       "\n" + result.text;
  WriteAll(UniqueFd(::open((task_dir + "/output").c_str(),
                           O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600))
               .get(),
           output);
  // Stopped (kill_shell, the session's end, the time cap) is killed, as a
  // background command's would be.
  status->status = std::string(result.stopped ? tasks::kKilled
                               : result.ok    ? tasks::kCompleted
                                              : tasks::kFailed);
  status->exit_code = result.ok ? 0 : (status->status == tasks::kKilled ? 128 + SIGTERM : 1);
  status->ended_ms = tasks::NowMs();
  // Nothing to do if it cannot be written: the session's directory is going.
  (void)tasks::WriteStatus(task_dir, *status);
}

int SubagentService::StopAll() {
  std::lock_guard lock(mutex_);
  int stopped = 0;
  for (auto& [id, entry] : by_id_) {
    if (entry->stop_write.valid()) ++stopped;
    entry->stop_write.Reset();
  }
  return stopped;
}

SubagentSummary SubagentService::Summary() const {
  std::lock_guard lock(mutex_);
  return {running_, waiting_, finished_, usage_};
}

}  // namespace ikigai::subagents
