// Issues 4 and 11's benchmark, in one run:
//   - discovery of the six core tools, and of 200 copies of a tool, against
//     the same --schema processes run one after another;
//   - the same discoveries cold (no schema cache: every tool asked) and warm
//     (the cache answers for unchanged files: no tool asked);
//   - one call through the executor against the bare round trip of the same
//     tool (posix_spawn, write the arguments, read to EOF, waitpid).
// Medians of repeated runs; the measurements alternate so that both sides
// see the same machine.
//
//   build/bench/host_bench SYSTEM_TOOL_DIR
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "discovery/discovery.h"
#include "executor/executor.h"
#include "spawning/run_many.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double MedianMs(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double TimeMs(const std::function<void()>& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Every tool's --schema, one process after another.
void SequentialSchemas(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    ikigai::spawning::Job job;
    job.spawn.path = path;
    job.spawn.argv = {path, "--schema"};
    job.spawn.env = ikigai::spawning::EnvironmentWith({});
    job.stdout_limit = 8192;
    job.timeout = std::chrono::milliseconds(1000);
    (void)ikigai::spawning::RunAll({job});
  }
}

std::vector<std::string> ToolsIn(const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().ends_with("-tool")) paths.push_back(e.path().string());
  }
  return paths;
}

// The bare round trip: what any host must do for one call.
void BareRoundTrip(const std::string& path, const std::string& input) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) std::abort();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ) != 0) std::abort();
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  if (::write(in[1], input.data(), input.size()) != static_cast<ssize_t>(input.size()))
    std::abort();
  ::close(in[1]);
  char buf[65536];
  while (::read(out[0], buf, sizeof buf) > 0) {
  }
  ::close(out[0]);
  int status;
  ::waitpid(pid, &status, 0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host_bench SYSTEM_TOOL_DIR\n");
    return 2;
  }
  const std::string system_dir = argv[1];
  const auto copies_dir = std::filesystem::temp_directory_path() / "ikigai-bench-200-tools";
  std::filesystem::remove_all(copies_dir);
  std::filesystem::create_directories(copies_dir);
  for (int i = 0; i < 200; ++i) {
    std::filesystem::copy_file(system_dir + "/file-read-tool",
                               copies_dir / ("copy" + std::to_string(i) + "-tool"));
  }

  const std::string cache = (copies_dir / "cache/schemas.json").string();
  const ikigai::discovery::DiscoveryOptions cached{.cache_path = cache};
  std::vector<double> six_cold, six_warm, many_cold, many_warm;
  const ikigai::discovery::Directories six{system_dir, "/nonexistent", "/nonexistent"};
  const ikigai::discovery::Directories many{copies_dir.string(), "/nonexistent", "/nonexistent"};
  std::vector<double> six_parallel, six_sequential, many_parallel, many_sequential;
  std::size_t found_six = 0, found_many = 0;
  for (int round = 0; round < 15; ++round) {
    six_parallel.push_back(
        TimeMs([&] { found_six = ikigai::discovery::Discover(six).tools().size(); }));
    six_sequential.push_back(TimeMs([&] { SequentialSchemas(ToolsIn(system_dir)); }));
    if (round < 7) {
      many_parallel.push_back(
          TimeMs([&] { found_many = ikigai::discovery::Discover(many).tools().size(); }));
      many_sequential.push_back(TimeMs([&] { SequentialSchemas(ToolsIn(copies_dir.string())); }));
    }
  }
  // Cold: the cache file removed before each run (the run writes it); warm:
  // it is there, every tool unchanged.
  for (int round = 0; round < 15; ++round) {
    const bool many_too = round < 7;
    for (const auto* dirs : {&six, &many}) {
      if (dirs == &many && !many_too) continue;
      auto& cold = dirs == &six ? six_cold : many_cold;
      auto& warm = dirs == &six ? six_warm : many_warm;
      std::filesystem::remove(cache);
      cold.push_back(TimeMs([&] { (void)ikigai::discovery::Discover(*dirs, cached); }));
      warm.push_back(TimeMs([&] { (void)ikigai::discovery::Discover(*dirs, cached); }));
    }
  }

  const std::string small = (copies_dir / "small.txt").string();
  std::FILE* f = std::fopen(small.c_str(), "w");
  std::fputs("line one\nline two\n", f);
  std::fclose(f);
  const std::string args = "{\"file_path\": \"" + small + "\"}";
  const auto registry = ikigai::discovery::Discover(six);
  const ikigai::executor::Executor executor({});
  const std::string tool_path = system_dir + "/file-read-tool";
  std::vector<double> through_executor, bare;
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 300; ++i) {
      through_executor.push_back(TimeMs([&] {
        auto r = executor.Run(registry, {{"id", "file_read", nlohmann::json::parse(args)}});
        if (!r.front().wrapped.value("tool_success", false)) std::abort();
      }));
      bare.push_back(TimeMs([&] { BareRoundTrip(tool_path, args); }));
    }
  }
  std::filesystem::remove_all(copies_dir);

  const double six_ms = MedianMs(six_parallel), many_ms = MedianMs(many_parallel);
  const double exec_ms = MedianMs(through_executor), bare_ms = MedianMs(bare);
  std::printf(
      "discovery, %zu core tools:   %7.2f ms  (one after another: %7.2f ms)  goal < 15 ms: %s\n",
      found_six, six_ms, MedianMs(six_sequential), six_ms < 15 ? "met" : "MISSED");
  std::printf(
      "discovery, %zu tool copies: %7.2f ms  (one after another: %7.2f ms)  goal < 250 ms: %s\n",
      found_many, many_ms, MedianMs(many_sequential), many_ms < 250 ? "met" : "MISSED");
  std::printf("discovery, %zu core tools, schema cache:   cold %7.2f ms  warm %7.2f ms\n",
              found_six, MedianMs(six_cold), MedianMs(six_warm));
  std::printf("discovery, %zu tool copies, schema cache: cold %7.2f ms  warm %7.2f ms\n",
              found_many, MedianMs(many_cold), MedianMs(many_warm));
  std::printf(
      "one call through the executor: %.3f ms, bare round trip: %.3f ms, ratio %.2f  goal <= 1.2: "
      "%s\n",
      exec_ms, bare_ms, exec_ms / bare_ms, exec_ms / bare_ms <= 1.2 ? "met" : "MISSED");
  return 0;
}
