#include "repl/testing/pty_session.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ikigai::repl::testing {

std::string StripEscapes(std::string_view text) {
  std::string plain;
  plain.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r') continue;
    if (c != '\033') {
      plain += c;
      continue;
    }
    if (i + 1 >= text.size()) break;
    const char kind = text[i + 1];
    if (kind == '[') {  // CSI: parameters, then a final byte in @..~
      std::size_t j = i + 2;
      while (j < text.size() && (text[j] < 0x40 || text[j] > 0x7e)) ++j;
      i = j;
    } else if (kind == ']') {  // OSC: up to BEL or ESC backslash
      std::size_t j = i + 2;
      while (j < text.size() && text[j] != '\007' && text[j] != '\033') ++j;
      i = j < text.size() && text[j] == '\033' ? j + 1 : j;
    } else {
      i += 1;
    }
  }
  return plain;
}

Result<std::unique_ptr<PtySession>, std::string> PtySession::Start(const std::string& program,
                                                                   const PtyOptions& options) {
  // Everything the child needs, built before fork.
  std::vector<std::string> argv_strings = {program};
  argv_strings.insert(argv_strings.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : options.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  winsize size{};
  size.ws_row = options.rows;
  size.ws_col = options.columns;
  std::unique_ptr<PtySession> session(new PtySession());
  const pid_t pid = ::forkpty(&session->master_, nullptr, nullptr, &size);
  if (pid < 0) return Err(std::string("forkpty: ") + std::strerror(errno));
  if (pid == 0) {
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
    ::execve(program.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::fcntl(session->master_, F_SETFD, FD_CLOEXEC);
  session->pid_ = pid;
  session->reader_ = std::thread([s = session.get()] { s->ReadLoop(); });
  return session;
}

PtySession::~PtySession() {
  if (Wait(std::chrono::milliseconds(0)) == -1 && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    Wait(std::chrono::seconds(10));
  }
  stopping_.store(true);
  if (reader_.joinable()) reader_.join();
  if (master_ >= 0) ::close(master_);
}

void PtySession::ReadLoop() {
  char chunk[4096];
  for (;;) {
    pollfd fd = {master_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, 100);
    if (stopping_.load()) return;
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    const ssize_t n = ::read(master_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    std::lock_guard lock(mutex_);
    if (n <= 0) {  // EIO once the child and its descendants closed the terminal
      closed_ = true;
      changed_.notify_all();
      return;
    }
    raw_.append(chunk, static_cast<std::size_t>(n));
    changed_.notify_all();
  }
}

void PtySession::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(master_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

bool PtySession::Expect(std::string_view text, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const std::string plain = StripEscapes(raw_);
    if (const auto at = plain.find(text, cursor_); at != std::string::npos) {
      cursor_ = at + text.size();
      return true;
    }
    if (closed_) return false;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) {
      const std::string last = StripEscapes(raw_);
      if (const auto at = last.find(text, cursor_); at != std::string::npos) {
        cursor_ = at + text.size();
        return true;
      }
      return false;
    }
  }
}

bool PtySession::Seen(std::string_view text) const {
  std::lock_guard lock(mutex_);
  return StripEscapes(raw_).find(text, cursor_) != std::string::npos;
}

int PtySession::Wait(std::chrono::milliseconds timeout) {
  if (status_ != -1) return status_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return status_;
    }
    if (done < 0 || std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string PtySession::Raw() const {
  std::lock_guard lock(mutex_);
  return raw_;
}

std::string PtySession::Plain() const { return StripEscapes(Raw()); }

std::string PtySession::Rest() const {
  std::lock_guard lock(mutex_);
  const std::string plain = StripEscapes(raw_);
  return cursor_ < plain.size() ? plain.substr(cursor_) : "";
}

}  // namespace ikigai::repl::testing
