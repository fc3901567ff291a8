#include "subagents/subagent.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "spawning/host_guard.h"
#include "spawning/spawn.h"

namespace ikigai::subagents {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxStdout = 8 * 1024 * 1024;  // the answer, and every tool call
constexpr std::size_t kStderrTail = 4096;            // why it failed, if it did
constexpr auto kGrace = std::chrono::seconds(2);
constexpr std::string_view kUsagePrefix = "[usage] ";

std::string LastLine(const std::string& text) {
  std::size_t end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return {};
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// Reads what is there; false at EOF (or an error).
bool Drain(int fd, std::string& into, std::size_t cap) {
  char chunk[16384];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      if (into.size() < cap) into.append(chunk, std::min<std::size_t>(n, cap - into.size()));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

std::vector<std::string> Arguments(const SubagentSettings& settings) {
  std::vector<std::string> argv = {settings.executable,
                                   "-p",
                                   "-",
                                   "--output",
                                   "json",
                                   "--provider",
                                   settings.provider,
                                   "--model",
                                   settings.model,
                                   "--permissions",
                                   settings.permissions,
                                   "--max-rounds",
                                   std::to_string(settings.max_rounds)};
  if (settings.trusted) argv.push_back("--trust");
  return argv;
}

SubagentResult Failure(std::string code, std::string message) {
  SubagentResult result;
  result.error_code = std::move(code);
  result.error = std::move(message);
  return result;
}

SubagentResult Interpret(const std::string& out, const std::string& err, int status, bool stopped,
                         bool timed_out, const SubagentSettings& settings) {
  SubagentResult result;
  const nlohmann::json answer = nlohmann::json::parse(out, nullptr, false);
  if (answer.is_object()) {
    result.usage = providers::UsageFromJson(answer.value("usage", nlohmann::json()));
    result.rounds = answer.value("rounds", 0);
    result.session = answer.value("session", std::string());
    result.round_limit_reached = answer.value("round_limit_reached", false);
  }
  result.stopped = stopped || timed_out;
  if (timed_out) {
    result.error_code = "TIMEOUT";
    result.error = "the subagent was stopped after " +
                   std::to_string(settings.time_cap.count() / 1000) +
                   " s (its time cap): give it a smaller task";
    return result;
  }
  if (stopped) {
    result.error_code = "CANCELLED";
    result.error =
        "the subagent was stopped before it answered (the call was cancelled, or kill_shell): "
        "ask the user before starting it again";
    return result;
  }
  if (answer.is_object() && answer.contains("error")) {
    result.error_code = answer.value("error_code", std::string("ERROR"));
    result.error = answer["error"].is_string() ? answer["error"].get<std::string>() : "failed";
    return result;
  }
  if (answer.is_object() && answer.contains("text")) {
    result.ok = true;
    result.text = answer["text"].is_string() ? answer["text"].get<std::string>() : "";
    if (result.round_limit_reached) {
      result.ok = false;
      result.error_code = "ROUND_LIMIT";
      result.error = "the subagent stopped after " + std::to_string(settings.max_rounds) +
                     " rounds, still calling tools; its last text is kept";
    }
    return result;
  }
  std::string how = WIFSIGNALED(status)
                        ? "was killed by signal " + std::to_string(WTERMSIG(status))
                        : "exited with status " + std::to_string(WEXITSTATUS(status));
  const std::string why = LastLine(err);
  return Failure("CRASHED", "the subagent " + how + " without an answer" +
                                (why.empty() ? std::string() : ": " + why) +
                                ". Try again with a smaller task, or do it here.");
}

}  // namespace

bool IsSubagent() {
  const char* value = std::getenv(kSubagentVariable);
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

SubagentResult RunSubagent(const SubagentSettings& settings, const std::string& prompt,
                           const std::vector<int>& stop_fds,
                           const std::function<void(const providers::Usage&)>& on_usage) {
  spawning::SpawnRequest request;
  request.path = settings.executable;
  request.argv = Arguments(settings);
  // The parent's environment, keys included (the subagent talks to the
  // provider), IKIGAI_SESSION_DIR included (the parent's guard knows it by it).
  request.env = spawning::EnvironmentWith({{kSubagentVariable, "1"}});
  auto spawned = spawning::Spawn(request);
  if (!spawned) {
    return Failure("START_FAILED", "could not start the subagent: " + spawned.error() +
                                       ". Do the task here instead, or try again later.");
  }
  spawning::Child child = std::move(*spawned);
  spawning::TellHostGuard(child.pid);

  const Clock::time_point started = Clock::now();
  const Clock::time_point cap = started + settings.time_cap;
  std::optional<Clock::time_point> kill_at;  // SIGKILL after the grace
  bool stopped = false, timed_out = false;
  std::size_t written = 0;
  std::string out, err;
  std::size_t err_parsed = 0;  // usage lines read up to here
  bool out_open = true, err_open = true;
  const auto stop = [&](bool by_cap) {
    if (kill_at) return;
    (by_cap ? timed_out : stopped) = true;
    ::kill(-child.pid, SIGTERM);
    kill_at = Clock::now() + kGrace;
  };
  while (out_open || err_open) {
    std::vector<pollfd> fds;
    if (child.stdin_fd.valid()) fds.push_back({child.stdin_fd.get(), POLLOUT, 0});
    if (out_open) fds.push_back({child.stdout_fd.get(), POLLIN, 0});
    if (err_open) fds.push_back({child.stderr_fd.get(), POLLIN, 0});
    const std::size_t first_stop = fds.size();
    if (!kill_at) {
      for (int fd : stop_fds) fds.push_back({fd, POLLIN, 0});
    }
    const Clock::time_point wake = kill_at ? *kill_at : cap;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    const int ready = ::poll(fds.data(), fds.size(),
                             static_cast<int>(std::clamp<long long>(wait.count() + 1, 0, 60000)));
    if (ready < 0 && errno != EINTR) break;
    if (Clock::now() >= wake) {
      if (kill_at) {
        ::kill(-child.pid, SIGKILL);
        kill_at = Clock::time_point::max();
      } else {
        stop(true);
      }
    }
    for (std::size_t i = first_stop; i < fds.size(); ++i) {
      if (fds[i].revents != 0) stop(false);
    }
    for (const pollfd& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == child.stdin_fd.get()) {
        const ssize_t n = ::write(p.fd, prompt.data() + written, prompt.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == prompt.size()) {
          child.stdin_fd.Reset();
        }
      } else if (p.fd == child.stdout_fd.get()) {
        out_open = Drain(p.fd, out, kMaxStdout);
      } else if (p.fd == child.stderr_fd.get()) {
        err_open = Drain(p.fd, err, kMaxStdout);
        // "[usage] {...}" lines: the usage of each request, as it comes.
        for (std::size_t end; (end = err.find('\n', err_parsed)) != std::string::npos;
             err_parsed = end + 1) {
          const std::string_view line(err.data() + err_parsed, end - err_parsed);
          if (on_usage && line.substr(0, kUsagePrefix.size()) == kUsagePrefix) {
            on_usage(providers::UsageFromJson(
                nlohmann::json::parse(line.substr(kUsagePrefix.size()), nullptr, false)));
          }
        }
        // Keep the last lines (why it failed, if it does), not all of them.
        if (err_parsed > kStderrTail) {
          err.erase(0, err_parsed - kStderrTail);
          err_parsed = kStderrTail;
        }
      }
    }
  }
  child.stdin_fd.Reset();
  if (kill_at) ::kill(-child.pid, SIGKILL);  // what it left of its group
  const int status = spawning::WaitChild(child.pid);
  return Interpret(out, err, status, stopped, timed_out, settings);
}

}  // namespace ikigai::subagents
