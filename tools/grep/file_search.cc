#include "grep/file_search.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/unique_fd.h"
#include "base/utf8.h"
#include "search/literal_finder.h"

namespace ikigai::grep_tool {
namespace {

constexpr std::size_t kMapThreshold = 32 << 20;  // larger files are mapped, not read
constexpr std::size_t kBinaryProbe = 8192;
// No output can show more lines than this; matches past it are only counted.
constexpr std::size_t kMaxRenderedMatches = 20000;

}  // namespace

std::string CutLongLine(std::string_view line) {
  std::string text = utf8::Repair(line);
  if (text.size() <= kMaxLineBytes) return text;
  const std::size_t keep = utf8::SafePrefixLength(text, kMaxLineBytes);
  const std::size_t rest = text.size() - keep;
  text.resize(keep);
  text += " [... line cut: " + std::to_string(rest) + " more bytes]";
  return text;
}

FileSearcher::~FileSearcher() {
  if (mapped_ != nullptr) ::munmap(mapped_, mapped_size_);
}

bool FileSearcher::Load(const std::string& path) {
  if (mapped_ != nullptr) {
    ::munmap(mapped_, mapped_size_);
    mapped_ = nullptr;
  }
  text_ = {};
  ikigai::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return false;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size >= kMapThreshold) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (p == MAP_FAILED) return false;
    ::madvise(p, size, MADV_SEQUENTIAL);
    mapped_ = p;
    mapped_size_ = size;
    text_ = std::string_view(static_cast<const char*>(p), size);
    return true;
  }
  if (buffer_.size() < size + 1) buffer_.resize(size + 1);  // reused: grows, never shrinks
  std::size_t got = 0;
  while (got < size + 1) {  // one byte more than the size: sees a file that grew
    const ssize_t n = ::read(fd.get(), buffer_.data() + got, size + 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text_ = std::string_view(buffer_.data(), std::min(got, size));
  return true;
}

FileResult FileSearcher::Search(const std::string& path, std::string_view display, bool render) {
  FileResult result;
  if (!Load(path)) return result;
  const std::string_view text = text_;
  if (std::memchr(text.data(), '\0', std::min(text.size(), kBinaryProbe)) != nullptr) {
    result.binary = true;
    return result;
  }
  if (!matcher_.MayMatch(text)) return result;

  std::vector<search::LineSpan> spans;
  std::vector<std::size_t> numbers;
  std::size_t from = 0, counted_to = 0, line_number = 1;
  while (auto line = matcher_.NextMatch(text, from)) {
    ++result.matches;
    if (options_.mode == OutputMode::kFilesWithMatches) break;
    if (options_.mode == OutputMode::kContent && render && spans.size() < kMaxRenderedMatches) {
      line_number += search::CountNewlines(text.data() + counted_to, text.data() + line->begin);
      counted_to = line->begin;
      spans.push_back(*line);
      numbers.push_back(line_number);
    }
    from = line->end + 1;
  }
  if (!spans.empty()) Render(text, display, spans, std::move(numbers), result);
  if (spans.size() < result.matches && options_.mode == OutputMode::kContent && render) {
    result.rendered_complete = false;
  }
  return result;
}

void FileSearcher::Render(std::string_view text, std::string_view display,
                          const std::vector<search::LineSpan>& matches,
                          std::vector<std::size_t> numbers, FileResult& result) const {
  const std::size_t context = options_.context;
  auto emit = [&](std::size_t number, std::string_view line, bool is_match) {
    if (result.rendered.size() >= options_.render_cap) {
      result.rendered_complete = false;
      return false;
    }
    result.rendered.append(display);
    result.rendered += is_match ? ':' : '-';
    result.rendered += std::to_string(number);
    result.rendered += is_match ? ": " : "- ";
    result.rendered += CutLongLine(line);
    result.rendered += '\n';
    ++result.rendered_lines;
    return true;
  };
  std::size_t last_emitted = 0;  // number of the last line printed, 0 for none
  for (std::size_t i = 0; i < matches.size(); ++i) {
    const std::size_t number = numbers[i];
    const search::LineSpan span = matches[i];
    // Context before: up to `context` lines, not reprinting what was printed.
    std::size_t first = number > context ? number - context : 1;
    first = std::max(first, last_emitted + 1);
    if (last_emitted != 0 && first > last_emitted + 1 && context > 0) {
      if (result.rendered.size() >= options_.render_cap) {
        result.rendered_complete = false;
        return;
      }
      result.rendered += "--\n";
      ++result.rendered_lines;
    }
    std::vector<std::string_view> before;
    std::size_t begin = span.begin;
    for (std::size_t n = number; n > first; --n) {
      const std::size_t end = begin - 1;  // the '\n' ending the previous line
      const void* nl = ::memrchr(text.data(), '\n', end);
      begin = nl == nullptr
                  ? 0
                  : static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1;
      before.push_back(text.substr(begin, end - begin));
    }
    for (std::size_t k = before.size(); k > 0; --k) {
      if (!emit(number - k, before[k - 1], false)) return;
    }
    if (!emit(number, text.substr(span.begin, span.end - span.begin), true)) return;
    last_emitted = number;
    // Context after: stop before the next match's line, which prints itself.
    const std::size_t next = i + 1 < matches.size() ? numbers[i + 1] : SIZE_MAX;
    std::size_t pos = span.end + 1;
    for (std::size_t n = number + 1; n <= number + context && n < next && pos < text.size(); ++n) {
      const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
      const std::size_t end =
          nl == nullptr ? text.size()
                        : static_cast<std::size_t>(static_cast<const char*>(nl) - text.data());
      if (!emit(n, text.substr(pos, end - pos), false)) return;
      last_emitted = n;
      pos = end + 1;
    }
  }
}

}  // namespace ikigai::grep_tool
