#include "hooks/runner.h"

#include <cstdlib>
#include <cstring>

#include "base/format.h"
#include "base/visible_text.h"
#include "spawning/environment.h"
#include "spawning/run_many.h"

namespace ikigai::hooks {
namespace {

constexpr std::size_t kStdoutLimit = 64 * 1024;
constexpr std::size_t kStderrLimit = 8 * 1024;
constexpr const char* kShell = "/bin/sh";

HookRun FromOutcome(const Hook& hook, spawning::JobOutcome outcome) {
  HookRun run;
  run.hook = &hook;
  run.out = std::move(outcome.out);
  run.err = std::move(outcome.err);
  switch (outcome.end) {
    case spawning::JobEnd::kExited:
      run.exit_code = outcome.exit_code;
      // The shell's own answers: the command was not found (127) or could
      // not be run (126). The hook never ran: a failure, not an answer.
      if (run.exit_code == 126 || run.exit_code == 127) {
        run.problem = "could not be run (exit code " + std::to_string(run.exit_code) + ")";
        break;
      }
      run.end = HookRun::End::kExited;
      return run;
    case spawning::JobEnd::kSignaled: {
      const char* abbrev = ::sigabbrev_np(outcome.term_signal);
      run.problem = "was killed by signal " + std::to_string(outcome.term_signal) +
                    (abbrev != nullptr ? " (SIG" + std::string(abbrev) + ")" : "");
      break;
    }
    case spawning::JobEnd::kTimedOut:
      run.end = HookRun::End::kTimedOut;
      run.problem = "timed out after " + FormatDuration(hook.timeout) + " and was stopped";
      return run;
    case spawning::JobEnd::kOutputTooLarge:
      run.problem = "printed more than " + FormatSize(kStdoutLimit) + " and was stopped";
      break;
    case spawning::JobEnd::kCancelled:
      run.end = HookRun::End::kCancelled;
      run.problem = "was stopped: the turn was cancelled";
      return run;
    case spawning::JobEnd::kSpawnFailed:
      run.problem = "could not be started (" + outcome.spawn_error + ")";
      break;
  }
  run.end = HookRun::End::kFailed;
  return run;
}

}  // namespace

std::string HookLabel(const Hook& hook) { return "`" + VisibleLine(hook.command, 60) + "`"; }

std::vector<HookRun> RunHooks(const std::vector<HookJob>& jobs, const RunSettings& settings,
                              int cancel_fd) {
  if (jobs.empty()) return {};
  const sandbox::Confinement* confinement = nullptr;
  if (settings.sandbox) {
    const std::optional<sandbox::Profile> profile =
        settings.profile ? settings.profile() : sandbox::Profile{};
    if (profile) confinement = &settings.sandbox->For(*profile);
  }
  std::vector<std::pair<std::string, std::string>> overrides;
  if (!settings.cwd.empty()) overrides.emplace_back("IKIGAI_PROJECT_DIR", settings.cwd);
  if (confinement != nullptr) {
    overrides.emplace_back("IKIGAI_SANDBOX", confinement->description);
    // As for tools (executor.cc): a TMPDIR the sandbox may not let them
    // write gave way to the sandbox's own.
    const char* host_tmp = std::getenv("TMPDIR");
    const std::string& temp_dir = settings.sandbox->settings().temp_dir;
    if (host_tmp != nullptr && *host_tmp != '\0' && temp_dir != host_tmp) {
      overrides.emplace_back("TMPDIR", temp_dir);
    }
  }
  const std::vector<std::string> env =
      spawning::ToolEnvironment(overrides, settings.env_passthrough);

  std::vector<spawning::Job> spawn_jobs;
  spawn_jobs.reserve(jobs.size());
  for (const HookJob& job : jobs) {
    spawning::Job spawn_job;
    spawn_job.spawn.path = kShell;
    spawn_job.spawn.argv = {kShell, "-c", job.hook->command};
    spawn_job.spawn.env = env;
    spawn_job.spawn.cwd = settings.cwd;
    if (confinement != nullptr) {
      spawn_job.spawn.pre_exec = confinement->pre_exec;
      spawn_job.spawn.pre_exec_context = confinement->context;
    }
    spawn_job.input = job.input;
    spawn_job.stdout_limit = kStdoutLimit;
    spawn_job.stderr_limit = kStderrLimit;
    spawn_job.timeout = job.hook->timeout;
    // A busy machine must not turn a slow hook into a failed one (and so
    // a blocked call); a hung one still stops at its deadline.
    spawn_job.excuse_cpu_wait = true;
    spawn_jobs.push_back(std::move(spawn_job));
  }
  std::vector<spawning::JobOutcome> outcomes = spawning::RunAll(spawn_jobs, cancel_fd);
  std::vector<HookRun> runs;
  runs.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    runs.push_back(FromOutcome(*jobs[i].hook, std::move(outcomes[i])));
  }
  return runs;
}

}  // namespace ikigai::hooks
