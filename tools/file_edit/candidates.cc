#include "file_edit/candidates.h"

#include <algorithm>
#include <cstdint>

#include "base/utf8.h"

namespace ikigai::file_edit {
namespace {

std::uint16_t Bigram(std::string_view s, std::size_t i) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(s[i]) << 8 |
                                    static_cast<unsigned char>(s[i + 1]));
}

// Scores lines against one needle, reusing its tables across lines.
class BigramScorer {
 public:
  explicit BigramScorer(std::string_view needle) : needle_counts_(1 << 16, 0), seen_(1 << 16, 0) {
    needle_bigrams_ = needle.size() < 2 ? 0 : needle.size() - 1;
    for (std::size_t i = 0; i < needle_bigrams_; ++i) ++needle_counts_[Bigram(needle, i)];
  }

  bool usable() const { return needle_bigrams_ > 0; }

  double Score(std::string_view line) {
    const std::size_t bigrams = line.size() < 2 ? 0 : line.size() - 1;
    if (bigrams == 0 || needle_bigrams_ == 0) return 0.0;
    std::size_t shared = 0;
    for (std::size_t i = 0; i < bigrams; ++i) {
      const std::uint16_t b = Bigram(line, i);
      if (seen_[b] == 0) touched_.push_back(b);
      if (seen_[b] < needle_counts_[b]) ++shared;
      ++seen_[b];
    }
    for (std::uint16_t b : touched_) seen_[b] = 0;
    touched_.clear();
    return 2.0 * static_cast<double>(shared) / static_cast<double>(bigrams + needle_bigrams_);
  }

 private:
  std::vector<std::uint32_t> needle_counts_;
  std::vector<std::uint32_t> seen_;
  std::vector<std::uint16_t> touched_;
  std::size_t needle_bigrams_ = 0;
};

std::string Displayable(std::string_view raw) {
  std::string text = utf8::Repair(raw);
  if (text.size() > kCandidateTextBytes) {
    text.resize(utf8::SafePrefixLength(text, kCandidateTextBytes));
    text += "...";
  }
  return text;
}

}  // namespace

double BigramSimilarity(std::string_view a, std::string_view b) {
  BigramScorer scorer(a);
  return scorer.Score(b);
}

std::vector<Candidate> NearestLines(std::string_view text, const std::vector<Line>& lines,
                                    std::string_view needle, std::size_t max, double min_score) {
  std::vector<Candidate> best;
  BigramScorer scorer(TrimWhitespace(needle));
  if (!scorer.usable() || max == 0) return best;
  struct Scored {
    double score;
    std::size_t index;
  };
  std::vector<Scored> scored;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const double score = scorer.Score(TrimWhitespace(Content(text, lines[i])));
    if (score >= min_score) scored.push_back({score, i});
  }
  const auto better = [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score > b.score : a.index < b.index;
  };
  const std::size_t keep = std::min(max, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep),
                    scored.end(), better);
  for (std::size_t k = 0; k < keep; ++k) {
    const Line& line = lines[scored[k].index];
    best.push_back({scored[k].index + 1, Displayable(Content(text, line)), scored[k].score});
  }
  return best;
}

std::string_view RepresentativeLine(std::string_view old_string) {
  for (const Line& line : SplitLines(old_string)) {
    const std::string_view content = Content(old_string, line);
    if (!TrimWhitespace(content).empty()) return content;
  }
  return {};
}

}  // namespace ikigai::file_edit
