// The file lines nearest to an old_string that was not found, so that a
// NOT_FOUND answer can show the model where its text probably is.
//
// Similarity is the Dice coefficient of the byte bigrams of the two trimmed
// lines (2 * shared bigrams / all bigrams), counted as multisets. Bigram
// counts live in flat 64 K tables, so scoring is one pass over the file's
// bytes: fast enough for a file of 100 000 lines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "file_edit/lines.h"

namespace ikigai::file_edit {

struct Candidate {
  std::size_t line;  // 1-based
  std::string text;  // the line as in the file, valid UTF-8; a longer one is cut
                     // to kCandidateTextBytes and "..." added
  double score;      // 0..1
};

inline constexpr std::size_t kCandidateTextBytes = 200;

// Dice coefficient of the bigrams of `a` and `b` (both taken as given).
double BigramSimilarity(std::string_view a, std::string_view b);

// Up to `max` lines of `text` whose trimmed content is most like the trimmed
// `needle`, best first (ties: earlier line first), each scoring at least
// `min_score`. Nothing when the needle has fewer than two bytes.
std::vector<Candidate> NearestLines(std::string_view text, const std::vector<Line>& lines,
                                    std::string_view needle, std::size_t max = 3,
                                    double min_score = 0.5);

// The line of old_string that best stands for it: the first non-blank one.
std::string_view RepresentativeLine(std::string_view old_string);

}  // namespace ikigai::file_edit
