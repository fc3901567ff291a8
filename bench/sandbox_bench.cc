// Issue 9's benchmark: one tool round trip (spawn a small static tool, write
// its arguments to stdin, read stdout to EOF, reap) through spawning::RunAll,
// bare and under the sandbox at tier 1 (Landlock + seccomp) and tier 2
// (namespaces too), side by side. Medians of alternating runs.
//
//   build/bench/sandbox_bench SYSTEM_TOOL_DIR
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sandbox/sandbox.h"
#include "spawning/run_many.h"

namespace {

using Clock = std::chrono::steady_clock;

double MedianMs(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double RoundTripMs(const std::string& tool, const std::string& args,
                   const ikigai::sandbox::Confinement* confinement) {
  ikigai::spawning::Job job;
  job.spawn.path = tool;
  job.spawn.argv = {tool};
  job.spawn.env = ikigai::spawning::EnvironmentWith({});
  if (confinement != nullptr) {
    job.spawn.pre_exec = confinement->pre_exec;
    job.spawn.pre_exec_context = confinement->context;
  }
  job.input = args;
  const auto start = Clock::now();
  const auto outcome = ikigai::spawning::RunAll({job}).front();
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (outcome.end != ikigai::spawning::JobEnd::kExited || outcome.exit_code != 0 ||
      outcome.out.find("line one") == std::string::npos) {
    std::fprintf(stderr, "round trip failed: %s %s\n", outcome.spawn_error.c_str(),
                 outcome.out.c_str());
    std::exit(1);
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sandbox_bench SYSTEM_TOOL_DIR\n");
    return 2;
  }
  namespace sb = ikigai::sandbox;
  const std::string tool = std::string(argv[1]) + "/file-read-tool";
  const auto ws = std::filesystem::temp_directory_path() / "ikigai-bench-sandbox";
  std::filesystem::create_directories(ws);
  const std::string small = (ws / "small.txt").string();
  std::ofstream(small) << "line one\nline two\n";
  const std::string args = "{\"file_path\": \"" + small + "\"}";

  const sb::Support support = sb::Probe();
  auto settings = sb::DefaultSettings(ws.string(), sb::ProcessEnvironment());
  if (!settings || support.landlock_abi == 0) {
    std::fprintf(stderr, "no sandbox here: %s\n",
                 settings ? "no Landlock" : settings.error().c_str());
    return 1;
  }
  sb::Support tier1_support = support;
  tier1_support.user_namespaces = false;
  auto tier1 = sb::Sandbox::Create(*settings, tier1_support);
  auto tier2 = sb::Sandbox::Create(*settings, support);
  if (!tier1 || !tier2) return 1;
  const sb::Confinement& t1 = (*tier1)->For({});
  const sb::Confinement* t2 = support.user_namespaces ? &(*tier2)->For({}) : nullptr;

  std::vector<double> bare, one, two;
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 200; ++i) {
      bare.push_back(RoundTripMs(tool, args, nullptr));
      one.push_back(RoundTripMs(tool, args, &t1));
      if (t2 != nullptr) two.push_back(RoundTripMs(tool, args, t2));
    }
  }
  std::filesystem::remove_all(ws);

  const double b = MedianMs(bare), o = MedianMs(one);
  std::printf("tool round trip (file-read-tool, median of %zu), Landlock ABI %d\n", bare.size(),
              support.landlock_abi);
  std::printf("  bare:    %6.3f ms\n", b);
  std::printf("  tier 1:  %6.3f ms  (%+.1f%%)  goal < +5%%: %s\n", o, (o / b - 1) * 100,
              o < b * 1.05 ? "met" : "MISSED");
  if (t2 != nullptr) {
    const double t = MedianMs(two);
    std::printf("  tier 2:  %6.3f ms  (%+.3f ms, %+.1f%%)  goal < +1 ms: %s\n", t, t - b,
                (t / b - 1) * 100, t - b < 1.0 ? "met" : "MISSED");
  } else {
    std::printf("  tier 2:  unavailable (%s)\n", support.no_userns_reason.c_str());
  }
  return 0;
}
