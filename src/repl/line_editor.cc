#include "repl/line_editor.h"

#include <histedit.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <deque>
#include <string_view>

#include "repl/signals.h"

namespace ikigai::repl {
namespace {

constexpr std::string_view kPasteStart = "\033[200~";
constexpr std::string_view kPasteEnd = "\033[201~";
constexpr char kPromptMarker = '\1';  // brackets the prompt's invisible escape sequences

// Reads what is ready on `fd` into `buffer`; false at the end or on error.
bool ReadSome(int fd, std::string& buffer) {
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buffer.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    return false;
  }
}

// Drains the wake-up pipe; returns what it held.
std::string DrainWake(int wake_fd) {
  std::string events;
  if (wake_fd < 0) return events;
  char chunk[64];
  ssize_t n;
  while ((n = ::read(wake_fd, chunk, sizeof chunk)) > 0) events.append(chunk, n);
  return events;
}

void WriteOut(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

class TerminalReader final : public LineReader {
 public:
  TerminalReader(int wake_fd, std::unique_ptr<HistoryFile> file, bool color)
      : wake_fd_(wake_fd), file_(std::move(file)), color_(color) {
    const char* term = std::getenv("TERM");
    bracketed_paste_ = term != nullptr && *term != '\0' && std::strcmp(term, "dumb") != 0;
    history_ = ::history_init();
    HistEvent event;
    ::history(history_, &event, H_SETSIZE, 1000);
    ::history(history_, &event, H_SETUNIQUE, 1);
    if (file_) {
      for (const auto& entry : file_->Load()) ::history(history_, &event, H_ENTER, entry.c_str());
    }
    el_ = ::el_init("ikigai", stdin, stdout, stderr);
    ::el_set(el_, EL_CLIENTDATA, this);
    ::el_set(el_, EL_EDITOR, "emacs");
    ::el_set(el_, EL_SIGNAL, 0);  // signals.h handles them
    ::el_set(el_, EL_HIST, ::history, history_);
    ::el_set(el_, EL_PROMPT_ESC, &TerminalReader::Prompt, kPromptMarker);
    ::el_set(el_, EL_GETCFN, &TerminalReader::GetChar);
    // The wide call: the narrow one copies the name and help and never frees them.
    ::el_wset(el_, EL_ADDFN, L"ikigai-newline", L"Insert a newline",
              &TerminalReader::InsertNewline);
    ::el_set(el_, EL_BIND, "\\e\\r", "ikigai-newline", nullptr);  // Alt+Enter
    ::el_set(el_, EL_BIND, "\\e\\n", "ikigai-newline", nullptr);  // the same, typed ahead
    // Not Ctrl+J: what is typed during a turn reaches libedit through the
    // terminal's cooked mode, where Enter has already become ^J.
    ::el_set(el_, EL_BIND, "^R", "em-inc-search-prev", nullptr);
    ::el_source(el_, nullptr);  // ~/.editrc
  }

  ~TerminalReader() override {
    ::el_end(el_);
    ::history_end(history_);
  }

  ReadResult Read(const std::string& prompt, int abort_fd) override {
    DrainWake(wake_fd_);  // a Ctrl+C while a command ran is not one at this prompt
    if (signals::QuitSignal() != 0) return {};
    abort_fd_ = abort_fd;
    aborted_ = false;
    prompt_ = color_ ? std::string(1, kPromptMarker) + "\033[1m" + kPromptMarker + prompt +
                           kPromptMarker + "\033[0m" + kPromptMarker
                     : prompt;
    interrupted_ = false;
    in_paste_ = false;
    pending_.clear();
    if (bracketed_paste_) WriteOut("\033[?2004h");
    // The terminal's editing mode before the prompt shows (libedit would set
    // it at the first key): a key pressed once the prompt is visible is never
    // taken by the cooked mode, where Ctrl+D would be lost.
    ::el_set(el_, EL_PREP_TERM, 1);
    int count = 0;
    const char* line = ::el_gets(el_, &count);
    if (bracketed_paste_) WriteOut("\033[?2004l");
    ReadResult result;
    if (aborted_) {
      result.status = ReadResult::Status::kAborted;
      return result;
    }
    if (interrupted_) {
      result.status = ReadResult::Status::kInterrupted;
      result.line_empty = interrupted_line_empty_;
      return result;
    }
    if (line == nullptr) return result;  // Ctrl+D, or the terminal is gone
    result.status = ReadResult::Status::kLine;
    result.text = line;  // UTF-8 (the count is of characters or bytes, by version)
    if (!result.text.empty() && result.text.back() == '\n') result.text.pop_back();
    return result;
  }

  void AddHistory(const std::string& entry) override {
    HistEvent event;
    ::history(history_, &event, H_ENTER, entry.c_str());
    if (file_) file_->Append(entry);
  }

  void SetNotifier(int fd, std::function<std::string()> on_ready) override {
    notify_fd_ = fd;
    on_notify_ = std::move(on_ready);
  }

 private:
  static TerminalReader* Self(EditLine* el) {
    void* self = nullptr;
    ::el_get(el, EL_CLIENTDATA, &self);
    return static_cast<TerminalReader*>(self);
  }

  static char* Prompt(EditLine* el) { return Self(el)->prompt_.data(); }

  static unsigned char InsertNewline(EditLine* el, int) {
    ::el_insertstr(el, "\n");
    return CC_REFRESH;
  }

  static int GetChar(EditLine* el, wchar_t* out) { return Self(el)->NextChar(out); }

  // The next character for libedit: 1, 0 at the end of input, -1 (errno
  // EINTR) on Ctrl+C.
  int NextChar(wchar_t* out) {
    for (;;) {
      if (!pending_.empty()) {
        *out = pending_.front();
        pending_.pop_front();
        return 1;
      }
      if (!bytes_.empty()) {
        const int decoded = Decode(out);
        if (decoded != 0) return decoded;
        if (!bytes_.empty() && !NeedMoreBytes()) continue;
      }
      const int waited = Wait();
      if (waited <= 0) return waited;
    }
  }

  // Turns the front of bytes_ into a character: 1 with *out set, -1 for an
  // interrupt, 0 when nothing came of it (markers consumed, or the bytes
  // are the incomplete start of something).
  int Decode(wchar_t* out) {
    std::string_view bytes = bytes_;
    if (bytes.front() == '\033') {
      for (auto marker : {kPasteStart, kPasteEnd}) {
        if (bytes.starts_with(marker)) {
          in_paste_ = marker == kPasteStart;
          bytes_.erase(0, marker.size());
          return 0;
        }
        if (marker.starts_with(bytes) && !waited_for_more_) {
          need_more_ = true;
          return 0;
        }
      }
    }
    waited_for_more_ = false;
    need_more_ = false;
    const unsigned char first = static_cast<unsigned char>(bytes.front());
    if (first == 3 && !in_paste_) {  // ^C as a character (when the terminal sends it as one)
      bytes_.erase(0, 1);
      return Interrupt();
    }
    if (in_paste_ && (first == '\r' || first == '\n')) {
      // A pasted newline stays in the line: the key bound to ikigai-newline.
      bytes_.erase(0, first == '\r' && bytes.size() > 1 && bytes[1] == '\n' ? 2 : 1);
      pending_.push_back(L'\r');
      *out = L'\033';
      return 1;
    }
    std::mbstate_t state{};
    wchar_t wc = 0;
    const std::size_t n = std::mbrtowc(&wc, bytes.data(), bytes.size(), &state);
    if (n == static_cast<std::size_t>(-2)) {
      need_more_ = true;
      return 0;
    }
    if (n == static_cast<std::size_t>(-1)) {  // not valid in this locale: dropped
      bytes_.erase(0, 1);
      return 0;
    }
    bytes_.erase(0, n == 0 ? 1 : n);
    if (in_paste_ && wc < 0x20 && wc != L'\t') return 0;  // pasted control characters
    *out = wc;
    return 1;
  }

  bool NeedMoreBytes() const { return need_more_; }

  // The notifier is called once, then forgotten.
  std::function<std::string()> TakeNotifier() {
    auto on_ready = std::move(on_notify_);
    on_notify_ = nullptr;
    notify_fd_ = -1;
    return on_ready;
  }

  int Interrupt() {
    const LineInfoW* line = ::el_wline(el_);
    interrupted_line_empty_ = line->buffer == line->lastchar;
    interrupted_ = true;
    errno = EINTR;
    return -1;
  }

  // Waits for input, a signal or the notifier: 1 when bytes_ grew (or
  // something was handled), 0 at the end of input, -1 on an interrupt.
  int Wait() {
    pollfd fds[4] = {{STDIN_FILENO, POLLIN, 0},
                     {wake_fd_, POLLIN, 0},
                     {notify_fd_, POLLIN, 0},
                     {abort_fd_, POLLIN, 0}};
    // An incomplete escape or character: the rest comes at once or never.
    const int timeout = need_more_ ? 50 : -1;
    const int ready = ::poll(fds, 4, timeout);
    if (ready < 0) return errno == EINTR ? 1 : 0;
    if (ready == 0) {  // the rest never came: take the bytes as they are
      waited_for_more_ = true;
      need_more_ = false;
      if (!bytes_.empty() && static_cast<unsigned char>(bytes_.front()) >= 0x80) bytes_.erase(0, 1);
      return 1;
    }
    if (fds[3].revents != 0) {
      aborted_ = true;
      return Interrupt();
    }
    if (fds[1].revents != 0) {
      for (char event : DrainWake(wake_fd_)) {
        if (event == signals::kQuit) return 0;  // as at the end of input
        if (event == signals::kInterrupt) return Interrupt();
        if (event == signals::kResize) {
          ::el_resize(el_);
          ::el_set(el_, EL_REFRESH);
        } else if (event == signals::kContinue) {
          ::el_set(el_, EL_PREP_TERM, 0);
          ::el_set(el_, EL_PREP_TERM, 1);
          ::el_set(el_, EL_REFRESH);
        }
      }
    }
    if (fds[2].revents != 0 && on_notify_) {
      const std::string text = TakeNotifier()();
      if (!text.empty()) PrintAbove(text);
    }
    if (fds[0].revents != 0) {
      if (!ReadSome(STDIN_FILENO, bytes_)) return 0;
    }
    return 1;
  }

  // Prints `text` where the prompt is, then draws the prompt and the line
  // again below it.
  void PrintAbove(std::string text) {
    winsize size{};
    const int columns =
        ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
    // The rows between the prompt's first and the cursor.
    int row = 0, column = 0;
    for (char c : prompt_) column += c != kPromptMarker ? 1 : 0;  // close enough: ASCII prompts
    const LineInfoW* line = ::el_wline(el_);
    for (const wchar_t* p = line->buffer; p < line->cursor; ++p) {
      if (*p == L'\n') {
        ++row;
        column = 0;
        continue;
      }
      const int width = ::wcwidth(*p);
      column += width > 0 ? width : 0;
      if (column >= columns) {
        ++row;
        column -= columns;
      }
    }
    std::string out = "\r";
    if (row > 0) out += "\033[" + std::to_string(row) + "A";
    out += "\033[J";
    if (!text.ends_with('\n')) text += '\n';
    WriteOut(out + text);
    ::el_set(el_, EL_REFRESH);
  }

  EditLine* el_ = nullptr;
  ::History* history_ = nullptr;
  int wake_fd_;
  int abort_fd_ = -1;  // of the Read under way
  bool aborted_ = false;
  std::unique_ptr<HistoryFile> file_;
  bool color_;
  bool bracketed_paste_ = false;
  std::string prompt_;
  std::string bytes_;            // read, not yet given to libedit
  std::deque<wchar_t> pending_;  // characters to give before reading more
  bool in_paste_ = false;
  bool need_more_ = false;
  bool waited_for_more_ = false;
  bool interrupted_ = false;
  bool interrupted_line_empty_ = true;
  int notify_fd_ = -1;
  std::function<std::string()> on_notify_;
};

class PlainReader final : public LineReader {
 public:
  PlainReader(int in_fd, int wake_fd) : in_fd_(in_fd), wake_fd_(wake_fd) {}

  ReadResult Read(const std::string&, int abort_fd) override {
    DrainWake(wake_fd_);
    ReadResult result;
    if (signals::QuitSignal() != 0) return result;
    for (;;) {
      if (const auto newline = buffer_.find('\n'); newline != std::string::npos) {
        result.status = ReadResult::Status::kLine;
        result.text = buffer_.substr(0, newline);
        if (!result.text.empty() && result.text.back() == '\r') result.text.pop_back();
        buffer_.erase(0, newline + 1);
        return result;
      }
      if (ended_) {
        if (buffer_.empty()) return result;
        result.status = ReadResult::Status::kLine;
        result.text = std::move(buffer_);
        buffer_.clear();
        return result;
      }
      pollfd fds[4] = {{in_fd_, POLLIN, 0},
                       {wake_fd_, POLLIN, 0},
                       {notify_fd_, POLLIN, 0},
                       {abort_fd, POLLIN, 0}};
      if (::poll(fds, 4, -1) < 0) continue;  // EINTR: the signal wrote to the pipe
      if (fds[3].revents != 0) {
        result.status = ReadResult::Status::kAborted;
        return result;
      }
      if (fds[1].revents != 0) {
        for (char event : DrainWake(wake_fd_)) {
          if (event == signals::kQuit) return result;
          if (event == signals::kInterrupt) {
            result.status = ReadResult::Status::kInterrupted;
            result.line_empty = buffer_.empty();
            buffer_.clear();
            return result;
          }
        }
      }
      if (fds[2].revents != 0 && on_notify_) {
        auto on_ready = std::move(on_notify_);
        on_notify_ = nullptr;
        notify_fd_ = -1;
        const std::string text = on_ready();
        WriteOut(text.empty() || text.ends_with('\n') ? text : text + "\n");
      }
      if (fds[0].revents != 0 && !ReadSome(in_fd_, buffer_)) ended_ = true;
    }
  }

  void AddHistory(const std::string&) override {}

  void SetNotifier(int fd, std::function<std::string()> on_ready) override {
    notify_fd_ = fd;
    on_notify_ = std::move(on_ready);
  }

 private:
  int in_fd_;
  int wake_fd_;
  std::string buffer_;
  bool ended_ = false;
  int notify_fd_ = -1;
  std::function<std::string()> on_notify_;
};

}  // namespace

std::unique_ptr<LineReader> MakeTerminalReader(int wake_fd, std::unique_ptr<HistoryFile> history,
                                               bool color) {
  return std::make_unique<TerminalReader>(wake_fd, std::move(history), color);
}

std::unique_ptr<LineReader> MakePlainReader(int in_fd, int wake_fd) {
  return std::make_unique<PlainReader>(in_fd, wake_fd);
}

}  // namespace ikigai::repl
