// Discovery: the three directories scanned, the winner of each name asked
// for its schema, several at once.
//
// Scanning is cheap and done in order of precedence (system, user,
// project), a later directory's tool replacing an earlier one of the same
// name, so that only winners are started. A winner whose file is unchanged
// since its answer was cached is not started at all. The others' "--schema"
// run in one spawning::RunAll, which enforces the time and size limits and
// keeps the number at once to what the machine can run; those that time
// out are asked once more with more time, fewer at once. Each outcome
// becomes a Tool or a DiscoveryFailure with its reason; answers that parsed
// go into the cache.
#include "discovery/discovery.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "base/format.h"
#include "discovery/scan.h"
#include "discovery/schema_cache.h"
#include "spawning/environment.h"
#include "spawning/run_many.h"

namespace ikigai::discovery {
namespace {

using registry::DiscoveryFailure;
using registry::Source;
using registry::Tool;

struct Winner {
  Candidate candidate;
  Source source;
};

std::string CurrentDirectory() {
  char* cwd = ::getcwd(nullptr, 0);
  if (cwd == nullptr) return ".";
  std::string dir(cwd);
  std::free(cwd);
  return dir;
}

std::string SystemDirectory() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path dir =
        (exe.parent_path() / ".." / IKIGAI_LIBEXEC_SUBDIR).lexically_normal();
    if (std::filesystem::is_directory(dir, error)) return dir.string();
  }
  return std::string(IKIGAI_INSTALL_PREFIX) + "/" + IKIGAI_LIBEXEC_SUBDIR;
}

// The same directory named twice (ikigai started in $HOME: project is user)
// is scanned once, under the lower precedence.
std::string Identity(const std::string& dir) {
  std::error_code error;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(dir, error);
  return error ? dir : canonical.string();
}

std::string LastLine(const std::string& text) {
  const std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  const std::size_t start = text.rfind('\n', end);
  std::string line = text.substr(start == std::string::npos ? 0 : start + 1,
                                 end + 1 - (start == std::string::npos ? 0 : start + 1));
  constexpr std::size_t kMaxDetail = 300;
  if (line.size() > kMaxDetail) line = line.substr(0, kMaxDetail) + "...";
  return line;
}

// Why a --schema run gives no tool, or empty if its output is to be parsed.
std::string RunFailure(const spawning::JobOutcome& outcome, const DiscoveryOptions& options) {
  switch (outcome.end) {
    case spawning::JobEnd::kExited:
      return outcome.exit_code == 0 ? "" : "exit code " + std::to_string(outcome.exit_code);
    case spawning::JobEnd::kSignaled:
      return "killed by signal " + std::to_string(outcome.term_signal);
    case spawning::JobEnd::kTimedOut:
      return "timeout";
    case spawning::JobEnd::kOutputTooLarge:
      return "schema larger than " + FormatSize(options.schema_limit);
    case spawning::JobEnd::kCancelled:
      return "cancelled";
    case spawning::JobEnd::kSpawnFailed:
      return "cannot start: " + outcome.spawn_error;
  }
  return "unknown outcome";  // unreachable: every JobEnd is handled above
}

std::size_t Cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// About two per core, so that a tool that takes half a second of CPU still
// answers within its second on a machine that is busy.
std::size_t Concurrency(const DiscoveryOptions& options) {
  if (options.max_concurrent > 0) return options.max_concurrent;
  return std::max<std::size_t>(4, 2 * Cores());
}

}  // namespace

std::string ToolNameFromFile(std::string_view file_name) {
  constexpr std::string_view kSuffix = "-tool";
  if (file_name.size() <= kSuffix.size() || !file_name.ends_with(kSuffix)) return {};
  std::string name(file_name.substr(0, file_name.size() - kSuffix.size()));
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

Directories DefaultDirectories() {
  Directories dirs;
  dirs.system = SystemDirectory();
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dirs.user = std::string(home) + "/.ikigai/tools";
  }
  dirs.project = CurrentDirectory() + "/.ikigai/tools";
  return dirs;
}

registry::Registry Discover(const Directories& dirs, const DiscoveryOptions& options) {
  std::vector<DiscoveryFailure> failures;
  std::map<std::string, Winner> winners;
  std::vector<std::string> scanned;
  const std::pair<const std::string*, Source> layers[] = {{&dirs.system, Source::kSystem},
                                                          {&dirs.user, Source::kUser},
                                                          {&dirs.project, Source::kProject}};
  for (const auto& [dir, source] : layers) {
    if (dir->empty()) continue;
    std::string identity = Identity(*dir);
    if (std::find(scanned.begin(), scanned.end(), identity) != scanned.end()) continue;
    scanned.push_back(std::move(identity));
    Scan scan = ScanDirectory(*dir);
    for (auto& failure : scan.failures) failures.push_back(std::move(failure));
    for (auto& candidate : scan.tools) {
      std::string name = candidate.name;
      winners.insert_or_assign(std::move(name), Winner{std::move(candidate), source});
    }
  }

  // The cache answers for unchanged files; only the rest are started.
  SchemaCache cache = SchemaCache::Load(options.cache_path);
  struct Asked {
    std::string schema_text;             // from the cache, or the tool's stdout
    std::optional<FileVersion> version;  // the file asked about
    std::size_t job = 0;                 // index in `jobs` when started
    bool cached = false;
  };
  std::map<std::string, Asked> asked;
  // --schema never needs credentials (DECISIONS §2): no secret at all.
  // With a sandbox, under the read-only profile without network.
  const sandbox::Confinement* confinement =
      options.sandbox ? &options.sandbox->For({sandbox::Access::kReadOnly, false}) : nullptr;
  const std::vector<std::string> env = spawning::ToolEnvironment(
      confinement != nullptr
          ? std::vector<std::pair<std::string, std::string>>{{"IKIGAI_SANDBOX",
                                                              confinement->description}}
          : std::vector<std::pair<std::string, std::string>>{},
      {});
  std::vector<spawning::Job> jobs;
  for (const auto& [name, winner] : winners) {
    Asked& entry = asked[name];
    entry.version = VersionOf(winner.candidate.path);
    if (entry.version) {
      if (auto text = cache.Find(winner.candidate.path, *entry.version)) {
        entry.schema_text = std::move(*text);
        entry.cached = true;
        continue;
      }
    }
    entry.job = jobs.size();
    spawning::Job job;
    job.spawn.path = winner.candidate.path;
    job.spawn.argv = {winner.candidate.path, "--schema"};
    job.spawn.env = env;
    if (confinement != nullptr) {
      job.spawn.pre_exec = confinement->pre_exec;
      job.spawn.pre_exec_context = confinement->context;
    }
    job.spawn.pipe_stdin = false;
    job.stdout_limit = options.schema_limit;
    job.stderr_limit = 4096;
    job.timeout = options.schema_timeout;
    // A slow start on a busy machine is not a broken tool.
    job.excuse_cpu_wait = true;
    jobs.push_back(std::move(job));
  }
  std::vector<spawning::JobOutcome> outcomes = spawning::RunAll(jobs, -1, Concurrency(options));
  // A tool can miss its deadline because the machine was busy (a first
  // Python start on a loaded machine takes seconds). Those are asked once
  // more, with thrice the time: a slow machine must not make a user's tools
  // vanish.
  std::vector<spawning::Job> retries;
  std::vector<std::size_t> retried;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (outcomes[k].end != spawning::JobEnd::kTimedOut) continue;
    retries.push_back(std::move(jobs[k]));
    retries.back().timeout = options.schema_timeout * 3;
    retried.push_back(k);
  }
  if (!retries.empty()) {
    std::vector<spawning::JobOutcome> second = spawning::RunAll(retries, -1, Concurrency(options));
    for (std::size_t r = 0; r < retried.size(); ++r) outcomes[retried[r]] = std::move(second[r]);
  }

  std::vector<Tool> tools;
  for (auto& [name, winner] : winners) {
    Asked& entry = asked[name];
    const spawning::JobOutcome no_run{};
    const spawning::JobOutcome& outcome = entry.cached ? no_run : outcomes[entry.job];
    auto fail = [&](std::string reason) {
      failures.push_back({name, winner.candidate.path, std::move(reason), LastLine(outcome.err)});
    };
    if (!entry.cached) {
      if (std::string why = RunFailure(outcome, options); !why.empty()) {
        fail(std::move(why));
        continue;
      }
      entry.schema_text = outcome.out;
    }
    auto schema = protocol::ParseSchema(entry.schema_text);
    if (!schema) {
      // ParseSchema's own words for text that is not JSON start "invalid JSON: ".
      const std::string& error = schema.error();
      fail(error.starts_with("invalid JSON: ") ? error : "invalid schema: " + error);
      continue;
    }
    if (!entry.cached && entry.version) {
      cache.Put(winner.candidate.path, *entry.version, entry.schema_text);
    }
    Tool tool;
    tool.name = name;
    tool.path = std::move(winner.candidate.path);
    tool.source = winner.source;
    tool.schema = std::move(*schema);
    if (tool.schema.name != tool.name) {
      tool.warnings.push_back("schema name '" + tool.schema.name +
                              "' differs from file name; registered as '" + tool.name + "'");
    }
    tools.push_back(std::move(tool));
  }
  // A cache that cannot be written costs time at the next start, nothing
  // else: not worth a failure the user would have to read.
  [[maybe_unused]] auto saved = cache.Save();
  return registry::Registry(std::move(tools), std::move(failures));
}

}  // namespace ikigai::discovery
