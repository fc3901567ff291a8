#include "repl/signals.h"

#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>

namespace ikigai::repl::signals {
namespace {

std::atomic<agent::Cancellation*> g_turn{nullptr};
std::atomic<int> g_presses_after_cancel{0};
std::atomic<int> g_quit_signal{0};
int g_pipe[2] = {-1, -1};
bool g_have_termios = false;
termios g_termios{};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT};
struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];

void Notify(char what) { [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &what, 1); }

void OnSignal(int sig) {
  const int saved_errno = errno;
  switch (sig) {
    case SIGINT:
      if (agent::Cancellation* turn = g_turn.load(); turn != nullptr) {
        if (!turn->requested()) {
          turn->Request();
        } else if (g_presses_after_cancel.fetch_add(1) + 1 >= 2) {
          ::_exit(130);
        }
      } else {
        Notify(kInterrupt);
      }
      break;
    case SIGTERM:
    case SIGHUP:
      if (g_quit_signal.exchange(sig) != 0) ::_exit(128 + sig);  // the second: at once
      if (agent::Cancellation* turn = g_turn.load(); turn != nullptr) turn->Request();
      Notify(kQuit);
      break;
    case SIGWINCH:
      Notify(kResize);
      break;
    case SIGTSTP:
      if (g_have_termios) ::tcsetattr(STDIN_FILENO, TCSADRAIN, &g_termios);
      ::kill(::getpid(), SIGSTOP);  // resumes here on SIGCONT
      break;
    case SIGCONT:
      Notify(kContinue);
      break;
    default:
      break;
  }
  errno = saved_errno;
}

}  // namespace

int Install() {
  if (g_pipe[0] >= 0) return g_pipe[0];
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  g_have_termios = ::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &g_termios) == 0;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked read or poll returns
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    ::sigaction(kSignals[i], &action, &g_previous[i]);
  }
  return g_pipe[0];
}

void Uninstall() {
  if (g_pipe[0] < 0) return;
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    ::sigaction(kSignals[i], &g_previous[i], nullptr);
  }
  ::close(g_pipe[0]);
  ::close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

int QuitSignal() { return g_quit_signal.load(); }

void SetTurn(agent::Cancellation* cancellation) {
  g_presses_after_cancel.store(0);
  g_turn.store(cancellation);
}

}  // namespace ikigai::repl::signals
