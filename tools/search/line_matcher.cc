#include "search/line_matcher.h"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <cstring>

namespace ikigai::search {
namespace {

constexpr std::string_view kMetacharacters = ".[]()*+?{}|^$\\";

bool IsPlainLiteral(std::string_view pattern) {
  return pattern.find_first_of(kMetacharacters) == std::string_view::npos;
}

std::size_t LineStart(std::string_view text, std::size_t pos) {
  const void* nl = ::memrchr(text.data(), '\n', pos);
  return nl == nullptr ? 0
                       : static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1;
}

std::size_t LineEnd(std::string_view text, std::size_t pos) {
  const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
  return nl == nullptr ? text.size()
                       : static_cast<std::size_t>(static_cast<const char*>(nl) - text.data());
}

RE2::Options RegexOptions(bool ignore_case) {
  RE2::Options options;
  options.set_never_nl(true);  // matches never span lines
  options.set_case_sensitive(!ignore_case);
  options.set_log_errors(false);
  options.set_max_mem(256 << 20);
  return options;
}

}  // namespace

LineMatcher::LineMatcher(LineMatcher&&) noexcept = default;
LineMatcher& LineMatcher::operator=(LineMatcher&&) noexcept = default;
LineMatcher::~LineMatcher() = default;

Result<LineMatcher, std::string> LineMatcher::Compile(std::string_view pattern, Options options) {
  LineMatcher matcher;
  if (pattern.empty()) return matcher;  // matches every line
  if (IsPlainLiteral(pattern)) {
    matcher.required_.emplace(std::string(pattern), options.ignore_case);
    return matcher;
  }
  // (?m): ^ and $ match at line boundaries, as grep's do.
  const std::string full = "(?m)" + std::string(pattern);
  const RE2::Options re_options = RegexOptions(options.ignore_case);
  matcher.regex_ = std::make_unique<re2::RE2>(full, re_options);
  if (!matcher.regex_->ok()) {
    // Report the pattern as the user wrote it, without our "(?m)".
    std::string error = matcher.regex_->error();
    if (auto at = error.find(full); at != std::string::npos)
      error.replace(at, full.size(), pattern);
    return Err(std::move(error));
  }

  // The prefilter's atoms are lowercase: they are searched ignoring case.
  re2::FilteredRE2 filter(/*min_atom_len=*/3);
  int id = 0;
  if (filter.Add(full, re_options, &id) != RE2::NoError) return matcher;
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  if (atoms.empty()) return matcher;
  std::vector<int> all(atoms.size()), potential;
  for (std::size_t i = 0; i < atoms.size(); ++i) all[i] = static_cast<int>(i);
  // An atom is required if, without it, the filter lets nothing through.
  std::optional<std::size_t> required;
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    std::vector<int> without;
    for (int a : all) {
      if (a != static_cast<int>(i)) without.push_back(a);
    }
    filter.AllPotentials(without, &potential);
    if (potential.empty() && (!required || atoms[i].size() > atoms[*required].size())) {
      required = i;
    }
  }
  filter.AllPotentials({}, &potential);
  if (!potential.empty()) return matcher;  // the filter cannot rule anything out
  if (required) {
    matcher.required_.emplace(atoms[*required], /*ignore_case=*/true);
  } else {
    for (auto& atom : atoms) matcher.any_of_.emplace_back(std::move(atom), /*ignore_case=*/true);
  }
  return matcher;
}

bool LineMatcher::MayMatch(std::string_view text) const {
  if (required_) return required_->Find(text) != std::string_view::npos;
  if (any_of_.empty()) return true;
  for (const auto& finder : any_of_) {
    if (finder.Find(text) != std::string_view::npos) return true;
  }
  return false;
}

bool LineMatcher::LineMatches(std::string_view line) const {
  if (regex_) return re2::RE2::PartialMatch(line, *regex_);
  return !required_ || required_->Find(line) != std::string_view::npos;
}

std::optional<LineSpan> LineMatcher::NextMatch(std::string_view text, std::size_t from) const {
  // Lines are [begin, end) spans ending before '\n' or at the end of text;
  // no line starts at the end of text (after a final newline, or empty).
  while (from < text.size()) {
    std::size_t at;
    if (required_) {
      at = required_->Find(text, from);
      if (at == std::string_view::npos) return std::nullopt;
    } else if (regex_ != nullptr) {
      re2::StringPiece match;
      if (!regex_->Match(text, from, text.size(), re2::RE2::UNANCHORED, &match, 1)) {
        return std::nullopt;
      }
      at = static_cast<std::size_t>(match.data() - text.data());
      // An empty match after the final newline is not on any line.
      if (at == text.size() && text.back() == '\n') return std::nullopt;
    } else {
      at = from;  // the empty pattern matches every line
    }
    const LineSpan line{LineStart(text, at), LineEnd(text, at)};
    // A required literal only says where to look: the regex decides.
    if (!required_ || regex_ == nullptr ||
        re2::RE2::PartialMatch(text.substr(line.begin, line.end - line.begin), *regex_)) {
      return line;
    }
    from = line.end + 1;
  }
  return std::nullopt;
}

}  // namespace ikigai::search
