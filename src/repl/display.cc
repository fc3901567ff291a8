#include "repl/display.h"

#include <unistd.h>

#include <clocale>
#include <cstdlib>
#include <cstring>

#include "base/visible_text.h"
#include "session/call_summary.h"

namespace ikigai::repl {
namespace {

constexpr const char* kReset = "\033[0m";
constexpr const char* kDim = "\033[2m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";

// The spinner appears only when the wait lasts: no flicker for quick answers.
constexpr auto kSpinnerDelay = std::chrono::milliseconds(250);
constexpr auto kSpinnerFrame = std::chrono::milliseconds(100);

std::string Painted(std::string_view text, const char* sgr, bool color) {
  if (!color) return std::string(text);
  return std::string(sgr) + std::string(text) + kReset;
}

// Outside text on the terminal: its controls shown, never obeyed.
std::string Visible(std::string_view text) { return VisibleText(text, Layout::kKeep); }
std::string VisibleName(std::string_view name) { return VisibleText(name, Layout::kOneLine); }

}  // namespace

Style Style::Detect(int fd) {
  Style style;
  const char* term = std::getenv("TERM");
  const bool dumb = term == nullptr || *term == '\0' || std::strcmp(term, "dumb") == 0;
  const bool tty = ::isatty(fd) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  style.color = tty && !dumb && (no_color == nullptr || *no_color == '\0');
  style.animate = tty && !dumb;
  const char* codeset = std::setlocale(LC_CTYPE, nullptr);
  style.unicode = codeset != nullptr && (std::strstr(codeset, "UTF-8") != nullptr ||
                                         std::strstr(codeset, "utf8") != nullptr);
  return style;
}

std::string FormatElapsed(std::chrono::milliseconds elapsed) {
  const long ms = elapsed.count();
  char text[32];
  if (ms < 10000) {
    std::snprintf(text, sizeof text, "%ld.%lds", ms / 1000, (ms / 100) % 10);
  } else if (ms < 60000) {
    std::snprintf(text, sizeof text, "%lds", ms / 1000);
  } else {
    std::snprintf(text, sizeof text, "%ldm%02lds", ms / 60000, (ms / 1000) % 60);
  }
  return text;
}

std::string ToolStartLine(const providers::ToolCall& call, const Style& style) {
  const std::string summary = session::SummarizeCall(call);  // "bash: ls -la"
  return Painted("[tool]", kDim, style.color) + " " +
         Painted(VisibleName(call.name), kBold, style.color) +
         summary.substr(std::min(summary.size(), VisibleName(call.name).size()));
}

std::string ToolEndLine(const providers::ToolCall& call, const protocol::WrappedJson& wrapped,
                        std::chrono::microseconds elapsed, const Style& style) {
  const std::string outcome = session::SummarizeResult(wrapped);
  const char* colour = kRed;
  if (outcome == "ok") {
    colour = kGreen;
  } else if (outcome.starts_with("exit ") || outcome.starts_with("timed out") ||
             outcome.starts_with("ok,")) {
    colour = kYellow;
  }
  return Painted("[tool]", kDim, style.color) + " " +
         Painted(VisibleName(call.name), kBold, style.color) + " -> " +
         Painted(outcome, colour, style.color) + " (" + std::to_string(elapsed.count() / 1000) +
         " ms)";
}

Display::Display(std::ostream& out, Style style) : out_(out), style_(style) {}

Display::~Display() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    ClearSpinnerLocked();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  out_.flush();
}

std::string Display::Paint(std::string_view text, const char* sgr) const {
  return Painted(text, sgr, style_.color);
}

void Display::ClearSpinnerLocked() {
  spinning_ = false;
  if (spinner_shown_) {
    out_ << "\r\033[K" << std::flush;
    spinner_shown_ = false;
  }
}

void Display::WriteLocked(std::string_view text) {
  ClearSpinnerLocked();
  if (text.empty()) return;
  out_ << text << std::flush;
  at_line_start_ = text.back() == '\n';
}

void Display::Text(std::string_view text) {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Feed(text));
}

void Display::ToolStart(const providers::ToolCall& call) {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + ToolStartLine(call, style_) + "\n");
}

void Display::ToolEnd(const providers::ToolCall& call, const protocol::WrappedJson& wrapped,
                      std::chrono::microseconds elapsed) {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + ToolEndLine(call, wrapped, elapsed, style_) + "\n");
}

void Display::Output(std::string_view text) {
  std::lock_guard lock(mutex_);
  WriteLocked(Visible(text));
}

void Display::Notice(std::string_view line) {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + Paint(Visible(line), kDim) + "\n");
}

void Display::Warning(std::string_view line) {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + Paint(Visible(line), kYellow) + "\n");
}

void Display::Error(std::string_view line) {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + Paint(Visible(line), kRed) + "\n");
}

void Display::Debug(std::string_view line) {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + Paint(Visible(line), kDim) + "\n");
}

void Display::Diff(std::string_view diff) {
  std::string text;
  for (std::size_t start = 0; start < diff.size();) {
    const std::size_t end = std::min(diff.find('\n', start), diff.size());
    const std::string line = Visible(diff.substr(start, end - start));
    const bool added = line.starts_with('+') && !line.starts_with("+++");
    const bool removed = line.starts_with('-') && !line.starts_with("---");
    text += "  " + (added ? Paint(line, kGreen) : removed ? Paint(line, kRed) : line) + "\n";
    start = end + 1;
  }
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + text);
}

void Display::Checklist(const std::vector<todos::Todo>& todos) {
  std::string text = Paint(todos.empty() ? "Plan cleared." : "Plan:", kDim) + "\n";
  const std::vector<std::string> plain = todos::ChecklistLines(todos);
  for (std::size_t i = 0; i < todos.size(); ++i) {
    const std::string& status = todos[i].status;
    const std::string content = VisibleText(todos[i].content, Layout::kOneLine);
    if (!style_.unicode) {
      text += "  " + Visible(plain[i]) + "\n";
    } else if (status == "completed") {
      text += "  " + Paint("\u2714 " + content, kDim) + "\n";
    } else if (status == "in_progress") {
      text += "  " + Paint("\u25b8 " + content, kBold) + "\n";
    } else {
      text += "  \u2610 " + content + "\n";
    }
  }
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());  // an answer's last held-back bytes first
  WriteLocked((at_line_start_ ? "" : "\n") + text);
}

void Display::EndLine() {
  std::lock_guard lock(mutex_);
  WriteLocked(answer_.Finish());
  if (!at_line_start_) WriteLocked("\n");
  ClearSpinnerLocked();
}

void Display::Spin(std::string label) {
  if (!style_.animate) return;
  {
    std::lock_guard lock(mutex_);
    ClearSpinnerLocked();
    label_ = std::move(label);
    since_ = std::chrono::steady_clock::now();
    spinning_ = true;
    if (!thread_.joinable()) thread_ = std::thread([this] { SpinnerLoop(); });
  }
  wake_.notify_all();
}

void Display::StopSpinner() {
  std::lock_guard lock(mutex_);
  ClearSpinnerLocked();
}

void Display::SpinnerLoop() {
  static const char* const kAscii[] = {"|", "/", "-", "\\"};
  static const char* const kBraille[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  std::size_t frame = 0;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!spinning_) {
      wake_.wait(lock, [this] { return stopping_ || spinning_; });
      continue;
    }
    const auto waited = std::chrono::steady_clock::now() - since_;
    // Only at the start of a line: never over a half-written answer.
    if (waited >= kSpinnerDelay && at_line_start_) {
      const char* glyph = style_.unicode ? kBraille[frame % 10] : kAscii[frame % 4];
      ++frame;
      out_ << "\r"
           << Paint(
                  std::string(glyph) + " " + label_ + " " +
                      FormatElapsed(std::chrono::duration_cast<std::chrono::milliseconds>(waited)),
                  kDim)
           << "\033[K" << std::flush;
      spinner_shown_ = true;
    }
    wake_.wait_for(lock, kSpinnerFrame);
  }
}

}  // namespace ikigai::repl
