// The output budget: every tool keeps its JSON answer under about 60 KB.
//
// The host accepts at most 64 KB from one call; a tool that comes near it
// cuts its own output and says so. Sizes here are counted as the text will
// appear inside a JSON string (after escaping), so a file full of control
// characters cannot blow the budget by expanding six-fold when printed.
// Cuts fall at line boundaries where there are lines, and never inside a
// UTF-8 sequence. Text must be valid UTF-8 (repair it first).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ikigai::toolkit {

// Budget for a whole JSON answer.
inline constexpr std::size_t kOutputBudget = 60 * 1024;
// What a tool may spend on its main text field; the rest is left for the
// other fields and the keys.
inline constexpr std::size_t kTextBudget = kOutputBudget - 1024;

// Bytes `s` takes inside a JSON string literal, quotes excluded.
std::size_t JsonEscapedSize(std::string_view s);

// Length of the longest prefix whose escaped size fits `budget`, ending
// after a newline when at least one whole line fits, else cut mid-line at a
// character boundary.
std::size_t HeadFitting(std::string_view s, std::size_t budget);

// Start of the longest suffix whose escaped size fits `budget`, beginning
// after a newline when at least one whole line fits.
std::size_t TailFitting(std::string_view s, std::size_t budget);

// `s` cut at a line boundary to fit `budget`. Returns the kept prefix.
std::string_view KeepHead(std::string_view s, std::size_t budget);

struct HeadAndTail {
  std::string_view head;
  std::string_view tail;
  std::size_t omitted_bytes;
  std::size_t omitted_lines;
};

// Splits `s` into a head (a third of the budget) and a tail (the rest), both
// cut at line boundaries, for output whose end matters most (a build log).
HeadAndTail KeepHeadAndTail(std::string_view s, std::size_t budget);

}  // namespace ikigai::toolkit
