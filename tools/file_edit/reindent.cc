#include "file_edit/reindent.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <numeric>

#include "file_edit/lines.h"

namespace ikigai::file_edit {
namespace {

using Kind = IndentStyle::Kind;

constexpr int kMaxUnit = 8;

// Indentation units seen in practice. Other steps between lines (5, 7) are
// alignment, not a unit.
bool IsLikelyUnit(int unit) { return unit == 2 || unit == 3 || unit == 4 || unit == 8; }

// What a text's indentation says about its style.
class Evidence {
 public:
  void Add(std::string_view text) {
    int previous = -1;  // width of the previous space-indented line
    for (const Line& line : SplitLines(text)) {
      const std::string_view content = Content(text, line);
      if (TrimWhitespace(content).empty()) continue;
      const std::string_view indent = LeadingIndent(content);
      if (!indent.empty() && indent[0] == '\t') {
        ++tab_lines_;
        previous = -1;
        continue;
      }
      if (indent.find('\t') != std::string_view::npos) {  // spaces then a tab: no evidence
        previous = -1;
        continue;
      }
      const int width = static_cast<int>(indent.size());
      // One space is a comment continuation (" * ") more often than a style.
      if (width >= 2) ++space_lines_;
      if (width > 0) gcd_ = std::gcd(gcd_, width);
      if (previous >= 0) {
        const int step = std::abs(width - previous);
        if (IsLikelyUnit(step)) ++steps_[static_cast<std::size_t>(step)];
      }
      previous = width;
    }
  }

  IndentStyle Style() const {
    if (tab_lines_ > 0 && tab_lines_ > space_lines_) return {Kind::kTabs, 0};
    int best = 0;
    for (int unit = 2; unit <= kMaxUnit; ++unit) {
      const int votes = steps_[static_cast<std::size_t>(unit)];
      if (votes > 0 && (best == 0 || votes > steps_[static_cast<std::size_t>(best)])) best = unit;
    }
    if (best != 0) return {Kind::kSpaces, best};
    for (int unit = kMaxUnit; unit >= 2 && gcd_ >= 2; --unit) {
      if (IsLikelyUnit(unit) && gcd_ % unit == 0) return {Kind::kSpaces, unit};
    }
    return {};
  }

 private:
  int tab_lines_ = 0;
  int space_lines_ = 0;
  int gcd_ = 0;
  std::array<int, kMaxUnit + 1> steps_{};
};

// An indentation in a style: whole levels and the spaces left over
// (alignment). As an offset between two indentations, levels may be negative.
struct Position {
  int level;
  int extra;
};

struct Counts {
  int tabs = 0;
  int spaces = 0;
};

Counts Count(std::string_view indent) {
  Counts c;
  for (char ch : indent) ++(ch == '\t' ? c.tabs : c.spaces);
  return c;
}

int FloorDiv(int a, int b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

Position Measure(std::string_view indent, const IndentStyle& style) {
  const Counts c = Count(indent);
  if (style.kind == Kind::kTabs) return {c.tabs, c.spaces};
  // In a spaces style a stray tab stands for one level.
  const int columns = c.spaces + c.tabs * style.unit;
  return {columns / style.unit, columns % style.unit};
}

Position Offset(std::string_view indent, std::string_view base, const IndentStyle& style) {
  const Counts c = Count(indent);
  const Counts b = Count(base);
  if (style.kind == Kind::kTabs) return {c.tabs - b.tabs, c.spaces - b.spaces};
  const int columns = (c.spaces + c.tabs * style.unit) - (b.spaces + b.tabs * style.unit);
  const int level = FloorDiv(columns, style.unit);
  return {level, columns - level * style.unit};
}

std::string Render(Position p, const IndentStyle& style) {
  const int level = std::max(p.level, 0);
  const int extra = std::max(p.extra, 0);
  if (style.kind == Kind::kTabs) {
    return std::string(static_cast<std::size_t>(level), '\t') +
           std::string(static_cast<std::size_t>(extra), ' ');
  }
  return std::string(static_cast<std::size_t>(level * style.unit + extra), ' ');
}

bool HasTab(std::string_view s) { return s.find('\t') != std::string_view::npos; }

// Spaces per level in the model's text, learned from the lines of
// old_string whose matched file lines are at another level than the base:
// their column offset divided by the file's level offset. 0 if none say.
int UnitFromCorrespondence(const std::vector<std::string_view>& old_lines,
                           const std::vector<std::string_view>& matched, std::size_t first,
                           const IndentStyle& file_style) {
  const std::string_view model_base = LeadingIndent(old_lines[first]);
  const std::string_view file_base = LeadingIndent(matched[first]);
  if (HasTab(model_base)) return 0;
  std::array<int, kMaxUnit + 1> votes{};
  for (std::size_t i = first + 1; i < old_lines.size() && i < matched.size(); ++i) {
    if (TrimWhitespace(old_lines[i]).empty()) continue;
    const std::string_view indent = LeadingIndent(old_lines[i]);
    if (HasTab(indent)) continue;
    const int columns = static_cast<int>(indent.size()) - static_cast<int>(model_base.size());
    const int levels = Offset(LeadingIndent(matched[i]), file_base, file_style).level;
    if (levels == 0 || columns % levels != 0) continue;
    const int unit = columns / levels;
    if (unit >= 1 && unit <= kMaxUnit) ++votes[static_cast<std::size_t>(unit)];
  }
  int best = 0;
  for (int unit = 1; unit <= kMaxUnit; ++unit) {
    if (votes[static_cast<std::size_t>(unit)] > votes[static_cast<std::size_t>(best)]) best = unit;
  }
  return best;
}

// Spaces per level from old_string's base alone: its width over the level
// of the file line it matched. 0 if that does not divide.
int UnitFromBase(std::string_view model_base, std::string_view file_base,
                 const IndentStyle& file_style) {
  if (HasTab(model_base)) return 0;
  const int levels = Measure(file_base, file_style).level;
  const int width = static_cast<int>(model_base.size());
  if (levels <= 0 || width % levels != 0) return 0;
  const int unit = width / levels;
  return unit >= 1 && unit <= kMaxUnit ? unit : 0;
}

std::vector<std::string_view> LineContents(std::string_view text) {
  std::vector<std::string_view> contents;
  for (const Line& line : SplitLines(text)) contents.push_back(Content(text, line));
  return contents;
}

}  // namespace

IndentStyle DetectIndentStyle(const std::vector<std::string_view>& texts) {
  Evidence evidence;
  for (std::string_view text : texts) evidence.Add(text);
  return evidence.Style();
}

std::string Reindent(const ReindentRequest& request) {
  const std::vector<std::string_view> old_lines = LineContents(request.old_string);
  const std::vector<std::string_view>& matched = request.matched_lines;
  std::size_t first = 0;
  while (first < old_lines.size() && TrimWhitespace(old_lines[first]).empty()) ++first;
  if (first >= old_lines.size() || first >= matched.size()) {
    return std::string(request.new_string);  // blank old_string: never matched loosely
  }
  const std::string_view model_base = LeadingIndent(old_lines[first]);
  const std::string_view file_base = LeadingIndent(matched[first]);

  IndentStyle model = DetectIndentStyle({request.old_string, request.new_string});
  IndentStyle file = request.file_style;
  if (file.kind == Kind::kSpaces && file.unit <= 0) file = {};
  if (model.kind != Kind::kTabs && !(model.kind == Kind::kUnknown && file.kind != Kind::kUnknown)) {
    // The model's spaces per level, surest evidence first. Models copy a
    // space file's unit but render a tab as 2, 4 or 8 columns.
    int unit = 0;
    if (file.kind != Kind::kUnknown) unit = UnitFromCorrespondence(old_lines, matched, first, file);
    if (unit == 0 && file.kind == Kind::kTabs) unit = UnitFromBase(model_base, file_base, file);
    if (unit == 0 && file.kind == Kind::kSpaces) unit = file.unit;
    if (unit == 0) unit = model.unit;
    if (unit == 0) unit = 4;
    model = {Kind::kSpaces, unit};
  }
  if (file.kind == Kind::kUnknown) file = model;
  if (model.kind == Kind::kUnknown) model = file;
  if (model == file && model_base == file_base) return std::string(request.new_string);

  // An indentation old_string used maps to the file's indentation of the
  // line it matched, alignment included; others are placed by level.
  std::map<std::string_view, std::string_view> seen;
  for (std::size_t i = first; i < old_lines.size() && i < matched.size(); ++i) {
    if (TrimWhitespace(old_lines[i]).empty()) continue;
    seen.emplace(LeadingIndent(old_lines[i]), LeadingIndent(matched[i]));
  }
  const Position file_position = Measure(file_base, file);
  std::string out;
  out.reserve(request.new_string.size() + request.new_string.size() / 4);
  const std::string_view text = request.new_string;
  for (const Line& line : SplitLines(text)) {
    const std::string_view content = Content(text, line);
    const std::string_view terminator = text.substr(line.content_end, line.end - line.content_end);
    if (TrimWhitespace(content).empty()) {  // a blank line carries no indentation
      out += terminator;
      continue;
    }
    const std::string_view indent = LeadingIndent(content);
    if (auto known = seen.find(indent); known != seen.end()) {
      out += known->second;
    } else {
      const Position offset = Offset(indent, model_base, model);
      out += Render({file_position.level + offset.level, file_position.extra + offset.extra}, file);
    }
    out += content.substr(indent.size());
    out += terminator;
  }
  return out;
}

}  // namespace ikigai::file_edit
