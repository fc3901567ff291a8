#include "agent/cancellation.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace ikigai::agent {

Cancellation::Cancellation() : event_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!event_.valid()) {
    std::perror("ikigai: eventfd");
    std::abort();
  }
}

void Cancellation::Request() {
  requested_.store(true);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(event_.get(), &one, sizeof one);
}

void Cancellation::Reset() {
  std::uint64_t value;
  [[maybe_unused]] const ssize_t n = ::read(event_.get(), &value, sizeof value);  // drain
  requested_.store(false);
}

}  // namespace ikigai::agent
