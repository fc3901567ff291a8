#include "file_edit/edit.h"

#include <vector>

#include "base/utf8.h"
#include "file_edit/candidates.h"
#include "file_edit/line_endings.h"
#include "file_edit/lines.h"
#include "file_edit/reindent.h"
#include "file_edit/whitespace_match.h"
#include "toolkit/error_codes.h"

namespace ikigai::file_edit {
namespace {

using toolkit::Json;
using toolkit::ToolError;

// How many match lines a NOT_UNIQUE message spells out.
constexpr std::size_t kLinesInMessage = 20;
// How much of old_string's first line a NOT_FOUND message quotes.
constexpr std::size_t kQuotedNeedleBytes = 100;

// Offsets of the non-overlapping occurrences of `needle`, left to right.
std::vector<std::size_t> ExactMatches(std::string_view text, std::string_view needle) {
  std::vector<std::size_t> offsets;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    offsets.push_back(at);
  }
  return offsets;
}

// The distinct 1-based line numbers of sorted byte offsets (several
// matches on one line are one line), in one pass over the text.
std::vector<std::size_t> LineNumbers(std::string_view text,
                                     const std::vector<std::size_t>& offsets) {
  std::vector<std::size_t> numbers;
  std::size_t offset = 0, line = 1;
  for (std::size_t at : offsets) {
    line = LineNumberAt(text, at, offset, line);
    offset = at;
    if (numbers.empty() || numbers.back() != line) numbers.push_back(line);
  }
  return numbers;
}

std::string ListLines(const std::vector<std::size_t>& lines) {
  std::string list;
  const std::size_t shown = std::min(lines.size(), kLinesInMessage);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) list += ", ";
    list += std::to_string(lines[i]);
  }
  if (lines.size() > shown) list += " and " + std::to_string(lines.size() - shown) + " more";
  return list;
}

Json LinesField(const std::vector<std::size_t>& lines) {
  Json field = Json::array();
  for (std::size_t i = 0; i < lines.size() && i < kMaxListedLines; ++i) field.push_back(lines[i]);
  return field;
}

// `count` matches on `lines` (distinct: several may share a line).
ToolError ExactNotUnique(std::size_t count, const std::vector<std::size_t>& lines) {
  const std::string where =
      lines.size() == 1 ? "all on line " + ListLines(lines) : "on lines " + ListLines(lines);
  return {toolkit::code::kNotUnique,
          "String found " + std::to_string(count) +
              " times, use replace_all to replace all. Matches " + where +
              "; add surrounding text to old_string to pick one.",
          {{"lines", LinesField(lines)}, {"matches", count}}};
}

ToolError NormalizedNotUnique(const std::vector<std::size_t>& lines) {
  return {toolkit::code::kNotUnique,
          "String found " + std::to_string(lines.size()) +
              " times with whitespace differences disregarded, and not exactly. Matches at "
              "lines " +
              ListLines(lines) +
              "; copy old_string exactly from the file (file_read), or add surrounding lines to "
              "pick one.",
          {{"lines", LinesField(lines)}}};
}

std::string Quoted(std::string_view s, std::size_t max_bytes) {
  std::string text = utf8::Repair(s);
  if (text.size() > max_bytes) {
    text.resize(utf8::SafePrefixLength(text, max_bytes));
    text += "...";
  }
  return "\"" + text + "\"";
}

ToolError NotFound(std::string_view content, const std::vector<Line>& lines,
                   std::string_view old_string) {
  const std::string_view needle = TrimWhitespace(RepresentativeLine(old_string));
  const std::vector<Candidate> nearest = NearestLines(content, lines, needle);
  const std::string next_step =
      " Re-read the file with file_read and copy old_string exactly from it, whitespace "
      "included.";
  if (nearest.empty()) {
    return {toolkit::code::kNotFound,
            "String not found in file. No line resembles " +
                (needle.empty() ? std::string("it") : Quoted(needle, kQuotedNeedleBytes)) + "." +
                next_step,
            {{"candidates", Json::array()}}};
  }
  std::string message =
      "String not found in file. Nearest lines to " + Quoted(needle, kQuotedNeedleBytes) + ":";
  Json candidates = Json::array();
  for (std::size_t i = 0; i < nearest.size(); ++i) {
    message += (i == 0 ? " line " : "; line ") + std::to_string(nearest[i].line) + ": " +
               Quoted(TrimWhitespace(nearest[i].text), kCandidateTextBytes);
    candidates.push_back({{"line", nearest[i].line}, {"text", nearest[i].text}});
  }
  message += "." + next_step;
  return {toolkit::code::kNotFound, std::move(message), {{"candidates", std::move(candidates)}}};
}

std::string ReplaceAt(std::string_view content, const std::vector<std::size_t>& offsets,
                      std::size_t old_size, std::string_view inserted) {
  std::string out;
  out.reserve(content.size() + offsets.size() * inserted.size());
  std::size_t copied = 0;
  for (std::size_t at : offsets) {
    out.append(content.substr(copied, at - copied));
    out.append(inserted);
    copied = at + old_size;
  }
  out.append(content.substr(copied));
  return out;
}

std::string_view WithoutFinalLineBreak(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

Result<EditOutcome, ToolError> ApplyWhitespaceNormalized(const EditRequest& request,
                                                         const std::vector<Line>& lines) {
  const std::vector<std::size_t> windows =
      FindWhitespaceNormalized(request.content, lines, request.old_string);
  if (windows.empty()) return Err(NotFound(request.content, lines, request.old_string));
  if (windows.size() > 1) {
    std::vector<std::size_t> numbers;
    for (std::size_t w : windows) numbers.push_back(w + 1);
    return Err(NormalizedNotUnique(numbers));
  }
  const std::size_t first = windows[0];
  const std::size_t count = SplitLines(request.old_string).size();
  const bool old_ends_with_newline = request.old_string.back() == '\n';
  const Region region = WindowRegion(lines, first, count, old_ends_with_newline);

  std::vector<std::string_view> matched;
  for (std::size_t i = first; i < first + count; ++i) {
    matched.push_back(Content(request.content, lines[i]));
  }
  std::string replacement = Reindent(
      {request.old_string, request.new_string, matched, DetectIndentStyle({request.content})});
  // old_string's final newline matched the end of a file that has none:
  // keep it without one.
  if (old_ends_with_newline && !region.ends_with_terminator) {
    replacement.resize(WithoutFinalLineBreak(replacement).size());
  }
  const std::string inserted = MatchLineEndings(replacement, DetectLineEnding(request.content));
  EditOutcome outcome;
  outcome.content = ReplaceAt(request.content, {region.begin}, region.end - region.begin, inserted);
  outcome.replacements = 1;
  outcome.whitespace_normalized = true;
  return outcome;
}

}  // namespace

std::optional<ToolError> CheckStrings(std::string_view old_string, std::string_view new_string) {
  if (old_string.empty()) {
    return ToolError{toolkit::code::kInvalidArg,
                     "old_string cannot be empty. Give the exact text to replace, copied from "
                     "the file; to create or overwrite a whole file use file_write."};
  }
  if (old_string == new_string) {
    return ToolError{toolkit::code::kInvalidArg,
                     "old_string and new_string are identical. The edit would change nothing; "
                     "give the new text in new_string."};
  }
  return std::nullopt;
}

Result<EditOutcome, ToolError> ApplyEdit(const EditRequest& request) {
  if (auto invalid = CheckStrings(request.old_string, request.new_string)) return Err(*invalid);
  const std::vector<std::size_t> offsets = ExactMatches(request.content, request.old_string);
  if (offsets.size() > 1 && !request.replace_all) {
    return Err(ExactNotUnique(offsets.size(), LineNumbers(request.content, offsets)));
  }
  if (!offsets.empty() || request.replace_all) {
    const std::string inserted =
        MatchLineEndings(request.new_string, DetectLineEnding(request.content));
    EditOutcome outcome;
    outcome.content =
        offsets.empty() ? std::string(request.content)
                        : ReplaceAt(request.content, offsets, request.old_string.size(), inserted);
    outcome.replacements = offsets.size();
    return outcome;
  }
  return ApplyWhitespaceNormalized(request, SplitLines(request.content));
}

}  // namespace ikigai::file_edit
