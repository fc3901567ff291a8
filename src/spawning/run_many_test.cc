#include "spawning/run_many.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "spawning/test_processes.h"
#include "testing/tool_runner.h"

namespace ikigai::spawning {
namespace {

using ikigai::testing::TempDir;
using std::chrono::milliseconds;
using test::Script;

Job ShellJob(const std::string& script, std::string input = "") {
  Job job;
  job.spawn.path = "/bin/sh";
  job.spawn.argv = {"sh", "-c", script};
  job.spawn.env = {"PATH=/usr/bin:/bin"};
  job.input = std::move(input);
  job.timeout = milliseconds(20000);
  return job;
}

JobOutcome RunOne(Job job) {
  auto outcomes = RunAll({std::move(job)});
  EXPECT_EQ(outcomes.size(), 1u);
  return outcomes.at(0);
}

TEST(RunManyTest, CollectsStdoutStderrAndExitCode) {
  const JobOutcome o = RunOne(ShellJob("printf out; printf err >&2; exit 3"));
  EXPECT_EQ(o.end, JobEnd::kExited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.out, "out");
  EXPECT_EQ(o.err, "err");
  EXPECT_FALSE(o.err_truncated);
  EXPECT_GT(o.elapsed.count(), 0);
}

TEST(RunManyTest, RoundTripsAMegabyteThroughStdin) {
  std::string input(1 << 20, '\0');
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<char>('a' + i % 26);
  Job job = ShellJob("cat", input);
  job.stdout_limit = 2 << 20;
  const JobOutcome o = RunOne(std::move(job));
  EXPECT_EQ(o.end, JobEnd::kExited);
  EXPECT_TRUE(o.out == input) << o.out.size() << " bytes back";
}

TEST(RunManyTest, ToolThatNeverReadsStdinDoesNotDeadlock) {
  const JobOutcome o = RunOne(ShellJob("sleep 0.1; printf done", std::string(1 << 20, 'x')));
  EXPECT_EQ(o.end, JobEnd::kExited);
  EXPECT_EQ(o.out, "done");
}

TEST(RunManyTest, ReportsTheSignalThatKilledTheProcess) {
  const JobOutcome o = RunOne(ShellJob("kill -SEGV $$"));
  EXPECT_EQ(o.end, JobEnd::kSignaled);
  EXPECT_EQ(o.term_signal, SIGSEGV);
}

TEST(RunManyTest, DeadlineStopsTheWholeGroup) {
  TempDir dir;
  Job job = ShellJob("sleep 30 & echo $! > " + (dir / "pid") + "; wait");
  job.timeout = milliseconds(300);
  const JobOutcome o = RunOne(std::move(job));
  EXPECT_EQ(o.end, JobEnd::kTimedOut);
  EXPECT_GE(o.elapsed, milliseconds(300));
  EXPECT_LT(o.elapsed, milliseconds(5000));
  const pid_t sleeper = test::ReadPid(dir / "pid");
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(test::DiesWithin(sleeper, milliseconds(2000)));
}

TEST(RunManyTest, ProcessIgnoringSigtermIsKilledAfterTheGrace) {
  Job job = ShellJob("trap '' TERM; printf partial; while :; do sleep 0.05; done");
  job.timeout = milliseconds(200);
  const JobOutcome o = RunOne(std::move(job));
  EXPECT_EQ(o.end, JobEnd::kTimedOut);
  EXPECT_EQ(o.out, "partial");
  EXPECT_LT(o.elapsed, milliseconds(5000));
}

TEST(RunManyTest, OutputPastTheLimitStopsTheProcess) {
  Job job = ShellJob("head -c 10000000 /dev/zero; sleep 30");
  job.stdout_limit = 64 * 1024;
  const JobOutcome o = RunOne(std::move(job));
  EXPECT_EQ(o.end, JobEnd::kOutputTooLarge);
  EXPECT_LE(o.out.size(), 64u * 1024);
  EXPECT_LT(o.elapsed, milliseconds(5000));
}

TEST(RunManyTest, OutputExactlyAtTheLimitIsKept) {
  Job job = ShellJob("head -c 1000 /dev/zero");
  job.stdout_limit = 1000;
  const JobOutcome o = RunOne(std::move(job));
  EXPECT_EQ(o.end, JobEnd::kExited);
  EXPECT_EQ(o.out.size(), 1000u);
}

TEST(RunManyTest, StderrPastItsLimitIsDrainedAndDropped) {
  Job job = ShellJob("head -c 1000000 /dev/zero >&2; printf ok");
  job.stderr_limit = 8 * 1024;
  const JobOutcome o = RunOne(std::move(job));
  EXPECT_EQ(o.end, JobEnd::kExited);
  EXPECT_EQ(o.out, "ok");
  EXPECT_EQ(o.err.size(), 8u * 1024);
  EXPECT_TRUE(o.err_truncated);
}

TEST(RunManyTest, BackgroundChildHoldingStdoutDoesNotHangTheLoop) {
  TempDir dir;
  const JobOutcome o =
      RunOne(ShellJob("(sleep 30 & echo $! > " + (dir / "pid") + ") ; printf '{}'"));
  EXPECT_EQ(o.end, JobEnd::kExited);
  EXPECT_EQ(o.out, "{}");
  EXPECT_LT(o.elapsed, milliseconds(5000));
  const pid_t sleeper = test::ReadPid(dir / "pid");
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(test::DiesWithin(sleeper, milliseconds(2000)));
}

TEST(RunManyTest, ClosingStdoutEarlyDoesNotHang) {
  const JobOutcome o = RunOne(ShellJob("printf early; exec 1>&-; sleep 0.2"));
  EXPECT_EQ(o.end, JobEnd::kExited);
  EXPECT_EQ(o.out, "early");
}

TEST(RunManyTest, SpawnFailureIsReportedPerJob) {
  Job bad = ShellJob("");
  bad.spawn.path = "/nonexistent/x-tool";
  auto outcomes = RunAll({ShellJob("printf a"), std::move(bad), ShellJob("printf c")});
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].out, "a");
  EXPECT_EQ(outcomes[1].end, JobEnd::kSpawnFailed);
  EXPECT_EQ(outcomes[1].spawn_error, "exec /nonexistent/x-tool: No such file or directory");
  EXPECT_EQ(outcomes[2].out, "c");
}

TEST(RunManyTest, JobsRunConcurrentlyAndKeepTheirOrder) {
  std::vector<Job> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back(ShellJob("sleep 0.3; printf " + std::to_string(i)));
  const auto start = std::chrono::steady_clock::now();
  const auto outcomes = RunAll(jobs);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(outcomes.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(outcomes[i].out, std::to_string(i));
  EXPECT_LT(took, milliseconds(6000));  // 12 s one after another
}

TEST(RunManyTest, CancelStopsEveryRunningJob) {
  int cancel[2];
  ASSERT_EQ(::pipe(cancel), 0);
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(300));
    ASSERT_EQ(::write(cancel[1], "x", 1), 1);
  });
  const auto outcomes =
      RunAll({ShellJob("sleep 30"), ShellJob("printf quick"), ShellJob("sleep 30")}, cancel[0]);
  canceller.join();
  ::close(cancel[0]);
  ::close(cancel[1]);
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].end, JobEnd::kCancelled);
  EXPECT_EQ(outcomes[1].end, JobEnd::kExited);  // finished before the cancel
  EXPECT_EQ(outcomes[1].out, "quick");
  EXPECT_EQ(outcomes[2].end, JobEnd::kCancelled);
  EXPECT_LT(outcomes[0].elapsed, milliseconds(5000));
}

TEST(RunManyTest, AlreadyCancelledStartsNothing) {
  TempDir dir;
  int cancel[2];
  ASSERT_EQ(::pipe(cancel), 0);
  ASSERT_EQ(::write(cancel[1], "x", 1), 1);
  const auto outcomes = RunAll({ShellJob("touch " + (dir / "ran"))}, cancel[0]);
  ::close(cancel[0]);
  ::close(cancel[1]);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].end, JobEnd::kCancelled);
  EXPECT_NE(::access((dir / "ran").c_str(), F_OK), 0);
}

TEST(RunManyTest, NoDescriptorOrChildLeftBehind) {
  const std::size_t fds_before = test::OpenFdCount();
  std::vector<Job> jobs;
  for (int i = 0; i < 20; ++i) {
    jobs.push_back(ShellJob("printf x"));
    jobs.push_back(ShellJob("(sleep 30 &); exit 4"));
    Job slow = ShellJob("sleep 30");
    slow.timeout = milliseconds(100);
    jobs.push_back(std::move(slow));
  }
  const auto outcomes = RunAll(jobs);
  for (std::size_t i = 0; i < outcomes.size(); i += 3) {
    EXPECT_EQ(outcomes[i].out, "x");
    EXPECT_EQ(outcomes[i + 1].exit_code, 4);
    EXPECT_EQ(outcomes[i + 2].end, JobEnd::kTimedOut);
  }
  EXPECT_EQ(test::OpenFdCount(), fds_before);
  EXPECT_TRUE(test::ChildrenOf(::getpid()).empty());
}

TEST(RunManyTest, EmptyBatch) { EXPECT_TRUE(RunAll({}).empty()); }

// A process that hangs stops at its timeout, excused or not: waiting on a
// sleep is not waiting for a CPU.
TEST(RunManyTest, AnExcusedJobThatHangsStillStopsAtItsTimeout) {
  Job job = ShellJob("sleep 30");
  job.timeout = milliseconds(300);
  job.excuse_cpu_wait = true;
  const JobOutcome o = RunOne(job);
  EXPECT_EQ(o.end, JobEnd::kTimedOut);
  EXPECT_LT(o.elapsed, std::chrono::seconds(2));
}

// A job starved of CPU: pinned to one CPU behind a busy loop at a far higher
// priority, it needs seconds of wall time for a few milliseconds of work.
// Counted by the wall clock it times out; with its waiting for the CPU
// excused it finishes.
TEST(RunManyTest, AJobStarvedOfCpuIsNotTakenForHung) {
  const pid_t hog = ::fork();
  ASSERT_GE(hog, 0);
  if (hog == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    ::sched_setaffinity(0, sizeof one, &one);
    volatile unsigned long spins = 0;
    for (;;) {
      spins = spins + 1;
    }
  }
  // The hog must be running on that CPU before the job starts there.
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(hog) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    long utime = 0;
    for (int k = 0; k < 12 && fields >> field; ++k) {
      if (k == 11) utime = std::stol(field);
    }
    if (utime > 0) break;
    std::this_thread::sleep_for(milliseconds(10));
  }
  // About 150 ms of work at nice 19 behind the loop: a few percent of the
  // CPU, however nice this process already is (1.5% behind nice 0, 4% behind
  // nice 5), so seconds, more when other work shares the CPU. The strict job
  // times out; the excused one, its cap raised so that no share of the CPU
  // can reach it here, finishes.
  const std::string work =
      "exec taskset -c 0 nice -n 19 sh -c 'i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; "
      "echo done'";
  Job strict = ShellJob(work);
  strict.timeout = milliseconds(1500);
  Job excused = strict;
  excused.excuse_cpu_wait = true;
  excused.max_excused_factor = 200;
  const JobOutcome timed = RunOne(strict);
  const JobOutcome finished = RunOne(excused);
  ::kill(hog, SIGKILL);
  ::waitpid(hog, nullptr, 0);
  EXPECT_EQ(timed.end, JobEnd::kTimedOut) << "the work should need more than a second here";
  EXPECT_EQ(finished.end, JobEnd::kExited) << finished.err;
  EXPECT_EQ(finished.out, "done\n");
}

}  // namespace
}  // namespace ikigai::spawning
