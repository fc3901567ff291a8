#include "file_read/line_reader.h"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/utf8.h"
#include "toolkit/budget.h"

namespace ikigai::file_read {
namespace {

constexpr std::size_t kChunk = 256 * 1024;

// Collects the lines of the window and decides when to stop.
class WindowBuilder {
 public:
  explicit WindowBuilder(const LineWindow& window) : window_(window) {}

  bool done() const { return done_; }
  // Adds bytes of the current line (no newline inside, except as last byte).
  // Returns false once the line is too long to ever be shown whole: the
  // caller ends it there instead of reading on to its newline.
  bool AddToLine(const char* data, std::size_t n) {
    // Escaped size is at least the byte count, so once the line holds more
    // bytes than the budget nothing more of it can be shown.
    const std::size_t room = window_.budget + 1;
    line_.append(data, std::min(n, room - line_.size()));
    line_started_ = line_started_ || n > 0;
    return line_.size() < room;
  }
  // Ends the current line, whose number is `line_number`.
  void EndLine(std::int64_t line_number) {
    if (!line_started_) return;
    const std::string text = utf8::Repair(line_);
    line_.clear();
    line_started_ = false;
    const std::size_t size = toolkit::JsonEscapedSize(text);
    if (used_ + size <= window_.budget) {
      result_.text += text;
      used_ += size;
      ++result_.lines;
      if (window_.limit && result_.lines >= *window_.limit) done_ = true;
      return;
    }
    result_.truncated = true;
    done_ = true;
    if (result_.lines > 0) {
      result_.next_offset = line_number;  // this line did not fit: start there
      return;
    }
    // The very first line alone is over the budget: show its beginning.
    result_.text = text.substr(0, toolkit::HeadFitting(text, window_.budget));
    result_.lines = 1;
    result_.next_offset = line_number + 1;
  }
  LinesRead Take() { return std::move(result_); }

 private:
  const LineWindow& window_;
  std::string line_;
  bool line_started_ = false;
  std::size_t used_ = 0;
  bool done_ = false;
  LinesRead result_;
};

// While lines are only being counted, a hole in a sparse file (which reads
// as NULs, never a newline) can be jumped over instead of read.
void SkipHole(int fd) {
  const off_t here = ::lseek(fd, 0, SEEK_CUR);
  if (here < 0) return;
  const off_t data = ::lseek(fd, here, SEEK_DATA);
  if (data < 0) ::lseek(fd, here, SEEK_SET);  // no data after here, or not supported
}

}  // namespace

Result<LinesRead, int> ReadLines(int fd, const LineWindow& window) {
  std::vector<char> buffer(kChunk);
  WindowBuilder builder(window);
  std::int64_t line = 1;  // number of the line the next byte belongs to
  if (window.limit && *window.limit <= 0) return builder.Take();
  for (;;) {
    if (line < window.offset) SkipHole(fd);
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return Err(errno);
    }
    if (got == 0) break;
    const char* p = buffer.data();
    const char* const end = p + got;
    while (p < end) {
      const char* nl =
          static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (line < window.offset) {
        if (nl == nullptr) break;  // the rest of this chunk is inside a skipped line
        ++line;
        p = nl + 1;
        continue;
      }
      const char* segment_end = nl != nullptr ? nl + 1 : end;
      const bool fits = builder.AddToLine(p, static_cast<std::size_t>(segment_end - p));
      p = segment_end;
      if (!fits) {
        builder.EndLine(line);  // too long: truncates, so reading stops here
        return builder.Take();
      }
      if (nl != nullptr) {
        builder.EndLine(line);
        ++line;
        if (builder.done()) return builder.Take();
      }
    }
  }
  builder.EndLine(line);  // a last line without a newline
  return builder.Take();
}

}  // namespace ikigai::file_read
