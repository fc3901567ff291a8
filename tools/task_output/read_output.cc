#include "read_output.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/io.h"
#include "base/unique_fd.h"
#include "base/utf8.h"
#include "toolkit/budget.h"

namespace ikigai::task_output {
namespace {

// Raw bytes read at most per call: more never fits the budget.
constexpr std::size_t kMaxRead = 64 * 1024;

using utf8::IsContinuation;
using utf8::RawLength;

// The length of `raw` without a character the writer has not finished: a
// lead byte at the end with fewer continuation bytes after it than it
// announces. Those bytes come with the next piece.
std::size_t WithoutUnfinishedCharacter(std::string_view raw) {
  std::size_t start = raw.size();
  for (int back = 0; back < 3 && start > 0 && IsContinuation(raw[start - 1]); ++back) --start;
  if (start == 0) return raw.size();
  const auto lead = static_cast<unsigned char>(raw[start - 1]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  const std::size_t have = raw.size() - (start - 1);
  return length > have && length <= 4 && lead < 0xF8 ? start - 1 : raw.size();
}

std::uint64_t ParseOffset(const std::string& text) {
  std::uint64_t value = 0;
  for (char c : text) {
    if (c == '\n') break;
    if (c < '0' || c > '9' || value > (UINT64_MAX - 9) / 10) return 0;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

Result<Piece, std::string> ReadNewOutput(const std::string& task_dir, bool ended,
                                         std::size_t budget) {
  const std::string offset_path = task_dir + "/read_offset";
  UniqueFd offset_fd(::open(offset_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!offset_fd.valid()) return Err(Errno("cannot open " + offset_path));
  if (::flock(offset_fd.get(), LOCK_EX) != 0) return Err(Errno("cannot lock " + offset_path));
  std::string offset_text;
  if (!ReadAll(offset_fd.get(), offset_text, 64)) return Err(Errno("cannot read " + offset_path));

  const std::string output_path = task_dir + "/output";
  UniqueFd output(::open(output_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!output.valid()) {
    // A subagent's owner may create its output only when it has some.
    if (errno == ENOENT) return Piece{};
    return Err(Errno("cannot open " + output_path));
  }
  struct stat st {};
  if (::fstat(output.get(), &st) != 0) return Err(Errno("cannot read " + output_path));
  const auto size = static_cast<std::uint64_t>(st.st_size);

  Piece piece;
  piece.offset = std::min(ParseOffset(offset_text), size);
  std::string raw(static_cast<std::size_t>(std::min<std::uint64_t>(size - piece.offset, kMaxRead)),
                  '\0');
  std::size_t got = 0;
  while (got < raw.size()) {
    const ssize_t n = ::pread(output.get(), raw.data() + got, raw.size() - got,
                              static_cast<off_t>(piece.offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Err(Errno("cannot read " + output_path));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  raw.resize(got);
  // A character cut by the read's size or by a writer still at work is
  // finished in the next piece; at the very end of an ended task's output
  // it never will be, and Repair marks it.
  const bool at_end = piece.offset + got >= size;
  const std::string_view whole =
      ended && at_end ? std::string_view(raw)
                      : std::string_view(raw).substr(0, WithoutUnfinishedCharacter(raw));
  std::string text = utf8::Repair(whole);
  std::size_t used = whole.size();
  piece.cut = !at_end;
  if (toolkit::JsonEscapedSize(text) > budget) {
    text.resize(toolkit::HeadFitting(text, budget));
    used = RawLength(whole, text.size());
    piece.cut = true;
  }
  piece.text = std::move(text);
  piece.next_offset = piece.offset + used;
  piece.remaining = size - piece.next_offset;

  const std::string next = std::to_string(piece.next_offset);
  if (::ftruncate(offset_fd.get(), 0) != 0 ||
      ::pwrite(offset_fd.get(), next.data(), next.size(), 0) != static_cast<ssize_t>(next.size())) {
    return Err(Errno("cannot write " + offset_path));
  }
  return piece;
}

}  // namespace ikigai::task_output
