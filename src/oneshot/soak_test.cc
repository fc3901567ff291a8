// Soak: more than a thousand tool calls through one `ikigai -p` session
// against aimock, and the host does not grow: the same open descriptors,
// no tool process left between rounds, memory that grows with the
// conversation only.
//
// Each round the model asks for ten calls (commands, reads, searches).
// Two answers come slowly (round 10 and the last), so the host can be
// looked at while it waits on the provider with no tool running: what it
// holds then, early and late, must be the same.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "providers/testing/aimock_server.h"
#include "testing/tool_runner.h"

extern char** environ;

namespace ikigai::oneshot {
namespace {

using providers::testing::AimockServer;
using testing::TempDir;
using testing::WriteFile;
using namespace std::chrono_literals;

const std::string kIkigai = IKIGAI_BIN;
constexpr int kRounds = 110;  // of ten calls: 1,100 in all
constexpr int kEarlyRound = 10;

// Ten calls: four commands, two reads, two globs, two greps.
std::string TenCalls() {
  std::string calls;
  for (int i = 0; i < 10; ++i) {
    std::string call;
    const std::string id = "\"id\": \"c" + std::to_string(i) + "\"";
    if (i == 0) {  // one line per round: how far the session has come
      call =
          "{" + id + R"(, "name": "bash", "arguments": {"command": "echo round >> rounds.log"}})";
    } else if (i < 4) {
      call = "{" + id + R"(, "name": "bash", "arguments": {"command": "echo soak-)" +
             std::to_string(i) + R"("}})";
    } else if (i < 6) {
      call = "{" + id + R"(, "name": "file_read", "arguments": {"file_path": "notes.txt"}})";
    } else if (i < 8) {
      call = "{" + id + R"(, "name": "glob", "arguments": {"pattern": "*.txt"}})";
    } else {
      call = "{" + id + R"(, "name": "grep", "arguments": {"pattern": "soak"}})";
    }
    calls += (i == 0 ? "" : ", ") + call;
  }
  return "[" + calls + "]";
}

std::string Fixtures() {
  const std::string calls = TenCalls();
  return R"({"fixtures": [
    {"match": {"turnIndex": )" +
         std::to_string(kRounds) + R"(}, "latency": 1500,
     "response": {"content": "soak done"}},
    {"match": {"turnIndex": )" +
         std::to_string(kEarlyRound) + R"(}, "latency": 100, "chunkSize": 4000,
     "response": {"toolCalls": )" +
         calls + R"(}},
    {"match": {"hasToolResult": true}, "response": {"toolCalls": )" +
         calls + R"(}},
    {"match": {"userMessage": "soak"}, "response": {"toolCalls": )" +
         calls + R"(}}
  ]})";
}

struct Footprint {
  int descriptors = 0;
  int tool_processes = 0;  // children but the guard
  long rss_kb = 0;
};

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

Footprint Measure(pid_t pid) {
  Footprint f;
  const std::string proc = "/proc/" + std::to_string(pid);
  std::error_code error;
  for (auto it = std::filesystem::directory_iterator(proc + "/fd", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++f.descriptors;
  }
  for (const auto& task : std::filesystem::directory_iterator(proc + "/task", error)) {
    std::istringstream children(Read(task.path().string() + "/children"));
    for (pid_t child; children >> child;) {
      const std::string comm = Read("/proc/" + std::to_string(child) + "/comm");
      if (comm.rfind("ikigai-guard", 0) != 0) ++f.tool_processes;
    }
  }
  std::istringstream status(Read(proc + "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) f.rss_kb = std::stol(line.substr(6));
  }
  return f;
}

TEST(Soak, AThousandToolCallsLeaveNoTrace) {
  // The slow answers come at their round only.
  auto aimock = AimockServer::Start(Fixtures(), /*strict_turn_index=*/true);
  ASSERT_TRUE(aimock) << aimock.error();
  TempDir home;
  const std::string project = home / "project";
  std::filesystem::create_directories(project);
  std::filesystem::create_directories(home / ".ikigai");
  WriteFile(project + "/notes.txt", "soak notes\n");
  WriteFile(home / ".ikigai/config.json", R"({"max_rounds": 200})");

  std::vector<std::string> env = {"HOME=" + home.path(),
                                  "PATH=/usr/bin:/bin",
                                  "OPENAI_API_KEY=" + std::string(AimockServer::kApiKey),
                                  "OPENAI_BASE_URL=" + (*aimock)->openai_base_url(),
                                  "IKIGAI_PERMISSIONS=auto",
                                  "NO_PROXY=127.0.0.1"};
  std::vector<std::string> argv = {kIkigai, "--provider", "openai", "-p", "soak"};
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const std::string out = home / "out", err = home / "err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT, 0600);
  posix_spawn_file_actions_addchdir_np(&actions, project.c_str());
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, kIkigai.c_str(), &actions, nullptr, cargv.data(), cenv.data()), 0);
  posix_spawn_file_actions_destroy(&actions);

  // Waits until `rounds` rounds of tools have run: the host then sends the
  // next request, whose answer is slow, and waits with no tool running.
  const std::string rounds_log = project + "/rounds.log";
  auto after_rounds = [&](int rounds) -> std::optional<Footprint> {
    for (auto until = std::chrono::steady_clock::now() + 600s;
         std::chrono::steady_clock::now() < until;) {
      const std::string log = Read(rounds_log);
      if (std::count(log.begin(), log.end(), '\n') >= rounds) {
        std::this_thread::sleep_for(300ms);
        return Measure(pid);
      }
      if (::waitpid(pid, nullptr, WNOHANG) == pid) return std::nullopt;
      std::this_thread::sleep_for(100ms);
    }
    return std::nullopt;
  };
  const auto early = after_rounds(kEarlyRound);
  ASSERT_TRUE(early) << Read(err);
  const auto late = after_rounds(kRounds);
  ASSERT_TRUE(late) << Read(err);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << Read(err).substr(0, 2000);
  EXPECT_EQ(Read(out), "soak done\n");

  auto journal = (*aimock)->Journal();
  ASSERT_TRUE(journal);
  EXPECT_EQ(journal->size(), static_cast<std::size_t>(kRounds + 1));
  // Every call ran and answered (aimock's journal keeps the start of a body
  // only, so the calls are counted from ikigai's own lines).
  const std::string rounds = Read(rounds_log), lines = Read(err);
  EXPECT_EQ(std::count(rounds.begin(), rounds.end(), '\n'), kRounds);
  std::size_t ok = 0;
  for (auto at = lines.find("-> ok ("); at != std::string::npos;
       at = lines.find("-> ok (", at + 1)) {
    ++ok;
  }
  EXPECT_EQ(ok, static_cast<std::size_t>(kRounds * 10));

  EXPECT_EQ(late->descriptors, early->descriptors);
  EXPECT_EQ(early->tool_processes, 0);
  EXPECT_EQ(late->tool_processes, 0);
#if !defined(__SANITIZE_ADDRESS__)
  // The conversation grows by a thousand small results (well under a
  // megabyte); anything kept per call would show here. AddressSanitizer
  // keeps freed memory in quarantine: its own leak check covers that build.
  EXPECT_LT(late->rss_kb - early->rss_kb, 8 * 1024)
      << "early " << early->rss_kb << " KB, late " << late->rss_kb << " KB";
#endif
  RecordProperty("rss_early_kb", static_cast<int>(early->rss_kb));
  RecordProperty("rss_late_kb", static_cast<int>(late->rss_kb));
}

}  // namespace
}  // namespace ikigai::oneshot
