#include "repl/discovery_task.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

#include "base/thread.h"

namespace ikigai::repl {

DiscoveryTask::DiscoveryTask(discovery::Directories directories,
                             discovery::DiscoveryOptions options, Extend extend)
    : directories_(std::move(directories)),
      options_(options),
      extend_(std::move(extend)),
      event_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

DiscoveryTask::~DiscoveryTask() {
  if (thread_.joinable()) thread_.join();
}

void DiscoveryTask::Start() {
  if (thread_.joinable() || done_.load()) return;
  thread_ = base::ThreadWithoutSignals([this] {
    result_ =
        std::make_shared<const registry::Registry>(discovery::Discover(directories_, options_));
    if (extend_) result_ = extend_(result_);
    done_.store(true);
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(event_.get(), &one, sizeof one);
  });
}

std::shared_ptr<const registry::Registry> DiscoveryTask::Wait(int cancel_fd) {
  while (!done_.load()) {
    pollfd fds[2] = {{event_.get(), POLLIN, 0}, {cancel_fd, POLLIN, 0}};
    if (::poll(fds, 2, -1) > 0 && fds[1].revents != 0 && !done_.load()) return nullptr;
  }
  if (thread_.joinable()) thread_.join();
  return result_;
}

}  // namespace ikigai::repl
