#include "output_fit.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>

#include "base/utf8.h"
#include "toolkit/budget.h"

namespace ikigai::bash_tool {
namespace {

using toolkit::JsonEscapedSize;
using utf8::IsContinuation;
using utf8::RawLength;

std::string_view WithoutTrailingNewline(std::string_view s) {
  return !s.empty() && s.back() == '\n' ? s.substr(0, s.size() - 1) : s;
}

std::uint64_t CountNewlines(std::string_view s) {
  return static_cast<std::uint64_t>(std::count(s.begin(), s.end(), '\n'));
}

struct Omission {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::uint64_t total_bytes = 0;
  std::uint64_t total_lines = 0;
};

std::string Count(std::uint64_t n, std::string_view unit) {
  return std::to_string(n) + " " + std::string(unit) + (n == 1 ? "" : "s");
}

std::string Marker(const Omission& o, const SavedOutput& saved) {
  // Lines omitted count the line breaks in the cut: with no break, a part
  // of one long line was left out.
  std::string m = "[... " +
                  (o.lines == 0 ? Count(o.bytes, "byte")
                                : Count(o.lines, "line") + " (" + Count(o.bytes, "byte") + ")") +
                  " omitted; ";
  const std::string whole = Count(o.total_lines, "line") + ", " + Count(o.total_bytes, "byte");
  if (saved.path.empty()) {
    m += "the full output (" + whole + ") could not be saved: " + saved.problem;
  } else if (saved.bytes < o.total_bytes) {
    m += "the output had " + whole + "; only the first " + std::to_string(saved.bytes) +
         " bytes are in " + saved.path + " (" + saved.problem + ")";
  } else {
    m += "full output (" + whole + ") in " + saved.path;
  }
  return utf8::Repair(m + " ...]");  // the path comes from $TMPDIR: any bytes
}

// The escaped size of the marker and its two line breaks at the largest
// counts, so the head and tail can be cut before the counts are known.
std::size_t MarkerReserve(const SavedOutput& saved) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  return JsonEscapedSize(Marker({kMax, kMax, kMax, kMax}, saved)) + 2 * 2;
}

std::string Join(std::string_view head, std::string_view marker, std::string_view tail) {
  std::string text(head);
  if (!text.empty() && text.back() != '\n') text += '\n';
  text.append(marker);
  text += '\n';
  text.append(tail);
  return text;
}

FittedOutput Truncated(std::string text, const SavedOutput& saved) {
  return {std::move(text), true, saved.path};
}

}  // namespace

FittedOutput FitOutput(OutputCapture& capture, std::size_t budget) {
  const std::uint64_t total = capture.total_bytes();
  const std::uint64_t total_lines =
      capture.total_newlines() + (capture.tail().empty() || capture.tail().back() == '\n' ? 0 : 1);

  if (capture.all_in_memory()) {
    const std::string_view raw = WithoutTrailingNewline(capture.head());
    std::string text = utf8::Repair(raw);
    if (JsonEscapedSize(text) <= budget) return {std::move(text), false, {}};

    const SavedOutput& saved = capture.Save();
    const std::size_t reserve = MarkerReserve(saved);
    const auto parts = toolkit::KeepHeadAndTail(text, budget > reserve ? budget - reserve : 0);
    const std::size_t raw_head = RawLength(raw, parts.head.size());
    const std::size_t raw_tail_start = RawLength(raw, text.size() - parts.tail.size());
    const Omission omission{raw_tail_start - raw_head, parts.omitted_lines, total, total_lines};
    return Truncated(Join(parts.head, Marker(omission, saved), parts.tail), saved);
  }

  const SavedOutput& saved = capture.Save();
  const std::size_t reserve = MarkerReserve(saved);
  const std::size_t text_budget = budget > reserve ? budget - reserve : 0;

  // The head buffer may end inside a character; the cut falls long before.
  const std::string_view head_raw = capture.head();
  const std::string head_text = utf8::Repair(head_raw);
  const std::string_view head =
      std::string_view(head_text).substr(0, toolkit::HeadFitting(head_text, text_budget / 3));

  // The tail window may begin inside a character: start at the next one.
  std::string_view tail_raw = capture.tail();
  const bool newline_stripped = !tail_raw.empty() && tail_raw.back() == '\n';
  tail_raw = WithoutTrailingNewline(tail_raw);
  for (int i = 0; i < 3 && !tail_raw.empty() && IsContinuation(tail_raw.front()); ++i) {
    tail_raw.remove_prefix(1);
  }
  const std::string tail_text = utf8::Repair(tail_raw);
  const std::size_t tail_budget = text_budget - std::min(text_budget, JsonEscapedSize(head));
  const std::size_t tail_start = toolkit::TailFitting(tail_text, tail_budget);
  const std::string_view tail = std::string_view(tail_text).substr(tail_start);

  const std::uint64_t shown_total = total - (newline_stripped ? 1 : 0);
  const std::uint64_t raw_head = RawLength(head_raw, head.size());
  const std::uint64_t raw_tail = tail_raw.size() - RawLength(tail_raw, tail_start);
  const std::uint64_t shown_newlines = capture.total_newlines() - (newline_stripped ? 1 : 0);
  const Omission omission{shown_total - raw_head - raw_tail,
                          shown_newlines - CountNewlines(head) - CountNewlines(tail), total,
                          total_lines};
  return Truncated(Join(head, Marker(omission, saved), tail), saved);
}

}  // namespace ikigai::bash_tool
