#include "hostapi/host_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>

#include "spawning/run_many.h"
#include "spawning/spawn.h"

namespace ikigai::hostapi {
namespace {

using nlohmann::json;

// "echo" answers its params; "wait" blocks until cancelled and counts it.
class FakeMethods : public Methods {
 public:
  MethodResult Call(const std::string& method, const json& params,
                    const CallContext& context) override {
    const int cancel_fd = context.cancel_fd;
    if (method == "echo") return params;
    if (method == "progress") {
      progress.push_back(context.tool);
      return json::object();
    }
    if (method == "wait") {
      pollfd p{cancel_fd, POLLIN, 0};
      ::poll(&p, 1, 30000);
      ++cancelled;
      return Err(RpcError{rpc_code::kCancelled, "cancelled"});
    }
    return Err(RpcError{rpc_code::kMethodNotFound, "no method " + method});
  }
  std::atomic<int> cancelled = 0;
  std::vector<std::string> progress;  // the tool of each progress notification
};

// The tool's side, by hand: one line out, one line back.
json Ask(int fd, const std::string& line) {
  EXPECT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  std::string answer;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') answer += c;
  return json::parse(answer, nullptr, false);
}

TEST(HostChannelTest, RequestsGetTheirAnswersAndMistakesClearErrors) {
  auto methods = std::make_shared<FakeMethods>();
  auto channel = HostChannel::Open(methods);
  ASSERT_TRUE(channel) << channel.error();
  const int fd = (*channel)->tool_end();

  json answer = Ask(fd, R"({"jsonrpc":"2.0","id":7,"method":"echo","params":{"x":1}})"
                        "\n");
  EXPECT_EQ(answer, json::parse(R"({"jsonrpc":"2.0","id":7,"result":{"x":1}})"));
  answer = Ask(fd, "not json\n");
  EXPECT_EQ(answer["error"]["code"], rpc_code::kParseError) << answer;
  answer = Ask(fd, R"({"jsonrpc":"2.0","id":"a"})"
                   "\n");
  EXPECT_EQ(answer["id"], "a");
  EXPECT_EQ(answer["error"]["code"], rpc_code::kInvalidRequest) << answer;
  answer = Ask(fd, R"({"jsonrpc":"2.0","id":8,"method":"fly"})"
                   "\n");
  EXPECT_EQ(answer["error"]["code"], rpc_code::kMethodNotFound) << answer;
  EXPECT_EQ(answer["error"]["message"], "no method fly");
}

// Only `progress` is served as a notification, on the reader: any other
// (a question, a subagent) would hold the reader beyond cancellation, so it
// is dropped, and the requests after it are still answered.
TEST(HostChannelTest, NotificationsOtherThanProgressAreDropped) {
  auto methods = std::make_shared<FakeMethods>();
  auto channel = HostChannel::Open(methods, "counter");
  ASSERT_TRUE(channel) << channel.error();
  const int fd = (*channel)->tool_end();
  const std::string notifications = R"({"jsonrpc":"2.0","method":"wait"})"
                                    "\n"
                                    R"({"jsonrpc":"2.0","method":"progress","params":{"n":1}})"
                                    "\n";
  ASSERT_EQ(::write(fd, notifications.data(), notifications.size()),
            static_cast<ssize_t>(notifications.size()));
  const json answer = Ask(fd, R"({"jsonrpc":"2.0","id":3,"method":"echo","params":{"x":2}})"
                              "\n");
  EXPECT_EQ(answer["result"], json({{"x", 2}})) << answer;
  EXPECT_EQ(methods->cancelled, 0) << "the wait notification ran";
  EXPECT_EQ(methods->progress, std::vector<std::string>{"counter"});
}

TEST(HostChannelTest, TheToolsEndClosingCancelsWhatStillRuns) {
  auto methods = std::make_shared<FakeMethods>();
  {
    auto channel = HostChannel::Open(methods);
    ASSERT_TRUE(channel) << channel.error();
    const std::string line = R"({"jsonrpc":"2.0","id":1,"method":"wait"})"
                             "\n";
    const int tool = ::dup((*channel)->tool_end());
    ASSERT_EQ(::write(tool, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    (*channel)->CloseToolEnd();
    ::close(tool);  // the tool ended
    for (int i = 0; i < 1000 && methods->cancelled == 0; ++i) ::usleep(10000);
    EXPECT_EQ(methods->cancelled, 1);
  }
  // And the channel's end waits for a request still running.
  auto channel = HostChannel::Open(methods);
  ASSERT_TRUE(channel) << channel.error();
  const std::string line = R"({"jsonrpc":"2.0","id":2,"method":"wait"})"
                           "\n";
  ASSERT_EQ(::write((*channel)->tool_end(), line.data(), line.size()),
            static_cast<ssize_t>(line.size()));
  for (int i = 0; i < 100; ++i) ::usleep(1000);
  channel->reset();
  EXPECT_EQ(methods->cancelled, 2);
}

TEST(HostChannelTest, ASpawnedProcessFindsItAtDescriptorThree) {
  auto channel = HostChannel::Open(std::make_shared<FakeMethods>());
  ASSERT_TRUE(channel) << channel.error();
  spawning::Job job;
  job.spawn.path = "/bin/sh";
  job.spawn.argv = {"sh", "-c",
                    R"(printf '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":3}}\n' >&3; )"
                    R"(head -n 1 <&3; ls /proc/self/fd)"};
  job.spawn.env = {"PATH=/usr/bin:/bin"};
  job.spawn.fd3 = (*channel)->tool_end();
  job.after_spawn = [&] { (*channel)->CloseToolEnd(); };
  const auto outcomes = spawning::RunAll({std::move(job)}, -1);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].exit_code, 0) << outcomes[0].err;
  const std::string& out = outcomes[0].out;
  EXPECT_NE(out.find(R"({"id":1,"jsonrpc":"2.0","result":{"n":3}})"), std::string::npos) << out;
  // 0, 1, 2, 3 and the one `ls` opened: nothing else of the host's.
  EXPECT_EQ(out.substr(out.find('\n') + 1), "0\n1\n2\n3\n4\n") << out;
  EXPECT_EQ((*channel)->tool_end(), -1);
}

}  // namespace
}  // namespace ikigai::hostapi
