// The YAML subset of SKILL.md front matter, read line by line: a top-level
// key starts at column 0; the indented (or blank) lines after it belong to
// its value. Scalars are folded as YAML folds them (a line break is a
// space, a blank line a newline); block scalars keep their lines (|) or
// fold them (>), then apply their chomping indicator.
#include "skills/front_matter.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ikigai::skills {
namespace {

constexpr std::string_view kSpace = " \t";

std::string_view Trim(std::string_view text) {
  const std::size_t start = text.find_first_not_of(kSpace);
  if (start == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(kSpace);
  return text.substr(start, end + 1 - start);
}

bool IsBlank(std::string_view line) { return Trim(line).empty(); }

std::size_t Indent(std::string_view line) {
  const std::size_t first = line.find_first_not_of(kSpace);
  return first == std::string_view::npos ? line.size() : first;
}

// A plain scalar ends before " #".
std::string_view WithoutComment(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      return Trim(text.substr(0, i));
    }
  }
  return Trim(text);
}

// Lines of a scalar joined as YAML folds them: a line break between two
// lines is a space, each blank line a newline.
std::string Fold(const std::vector<std::string_view>& pieces) {
  std::size_t count = pieces.size();
  while (count > 0 && pieces[count - 1].empty()) --count;
  std::string text;
  for (std::size_t k = 0; k < count; ++k) {
    if (k == 0) {
      text += pieces[k];
    } else if (pieces[k].empty()) {
      text += '\n';
    } else {
      if (!pieces[k - 1].empty()) text += ' ';
      text += pieces[k];
    }
  }
  return text;
}

// A `|` or `>` block: `header` is what follows the indicator's key.
std::string BlockScalar(std::string_view header, const std::vector<std::string_view>& lines) {
  const bool folded = header.front() == '>';
  char chomp = ' ';
  std::size_t indent = 0;
  for (char c : WithoutComment(header.substr(1))) {
    if (c == '-' || c == '+') chomp = c;
    if (c >= '1' && c <= '9') indent = static_cast<std::size_t>(c - '0');
  }
  if (indent == 0) {
    for (std::string_view line : lines) {
      if (!IsBlank(line)) {
        indent = Indent(line);
        break;
      }
    }
  }
  std::vector<std::string_view> content;
  for (std::string_view line : lines) {
    content.push_back(IsBlank(line) ? std::string_view()
                                    : line.substr(std::min(indent, Indent(line))));
  }
  std::size_t trailing = 0;
  while (!content.empty() && content.back().empty()) {
    content.pop_back();
    ++trailing;
  }
  const auto ordinary = [](std::string_view line) {
    return !line.empty() && line.front() != ' ' && line.front() != '\t';
  };
  std::string text;
  for (std::size_t k = 0; k < content.size(); ++k) {
    const std::string_view line = content[k];
    if (k == 0) {
      text += line;
    } else if (!folded) {
      text += '\n';
      text += line;
    } else if (line.empty()) {
      text += '\n';  // a blank line is a line break
    } else if (content[k - 1].empty()) {
      text += line;  // the break before the blank lines is folded away
    } else if (ordinary(line) && ordinary(content[k - 1])) {
      text += ' ';
      text += line;
    } else {
      text += '\n';  // more-indented lines keep their breaks
      text += line;
    }
  }
  if (content.empty()) return chomp == '+' ? std::string(trailing, '\n') : std::string();
  if (chomp == ' ') text += '\n';
  if (chomp == '+') text += std::string(trailing + 1, '\n');
  return text;
}

// A quoted scalar from its first line and its continuation lines; the text
// after the closing quote is ignored.
Result<std::string, std::string> QuotedScalar(std::string_view first,
                                              const std::vector<std::string_view>& lines) {
  std::vector<std::string_view> pieces = {first};
  for (std::string_view line : lines) pieces.push_back(Trim(line));
  const std::string text = Fold(pieces);
  const char quote = text.front();
  std::string value;
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'') {
      if (c != '\'') {
        value += c;
      } else if (i + 1 < text.size() && text[i + 1] == '\'') {
        value += '\'';
        ++i;
      } else {
        return value;
      }
      continue;
    }
    if (c == '"') return value;
    if (c != '\\' || i + 1 == text.size()) {
      value += c;
      continue;
    }
    const char escaped = text[++i];
    switch (escaped) {
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case 'r':
        value += '\r';
        break;
      case '0':
        break;
      case 'x':
      case 'u':
      case 'U': {
        const std::size_t digits = escaped == 'x' ? 2 : escaped == 'u' ? 4 : 8;
        unsigned long code = 0;
        std::size_t k = 0;
        for (; k < digits && i + 1 < text.size() &&
               std::isxdigit(static_cast<unsigned char>(text[i + 1]));
             ++k) {
          const char h = text[++i];
          code = code * 16 + static_cast<unsigned long>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
        }
        // UTF-8 of the code point.
        if (code < 0x80) {
          value += static_cast<char>(code);
        } else if (code < 0x800) {
          value += static_cast<char>(0xC0 | (code >> 6));
          value += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
          value += static_cast<char>(0xE0 | (code >> 12));
          value += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          value += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x110000) {
          value += static_cast<char>(0xF0 | (code >> 18));
          value += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
          value += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          value += static_cast<char>(0x80 | (code & 0x3F));
        }
        break;
      }
      default:  // \" \\ \/ and anything else: the character itself
        value += escaped;
    }
  }
  return Err(std::string("a quoted value does not end"));
}

// The value of a key: `rest` is what follows "key:" on its line, `lines`
// the indented or blank lines after it.
Result<std::string, std::string> Value(std::string_view rest,
                                       const std::vector<std::string_view>& lines) {
  if (!rest.empty() && (rest.front() == '|' || rest.front() == '>')) {
    return BlockScalar(rest, lines);
  }
  if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
    return QuotedScalar(rest, lines);
  }
  std::vector<std::string_view> pieces = {WithoutComment(rest)};
  for (std::string_view line : lines) {
    const std::string_view piece = WithoutComment(line);
    // "key:" then nested "a: b" or "- a" lines: a mapping or a list, not text.
    if (pieces.size() == 1 && pieces.front().empty() && !piece.empty() &&
        (piece.starts_with("- ") || piece == "-" || piece.ends_with(':') ||
         piece.find(": ") != std::string_view::npos)) {
      return std::string();
    }
    pieces.push_back(piece);
  }
  return Fold(pieces);
}

bool IsFence(std::string_view line) { return Trim(line) == "---"; }

}  // namespace

Result<SkillDocument, std::string> ParseSkillDocument(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a byte order mark
  std::vector<std::string_view> lines;
  std::size_t body_start = std::string_view::npos;
  std::size_t position = 0;
  bool closed = false;
  while (position < text.size()) {
    std::size_t end = text.find('\n', position);
    const std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(position, end - position);
    if (line.ends_with('\r')) line.remove_suffix(1);
    position = next;
    if (body_start == std::string_view::npos) {
      if (!IsFence(line))
        return Err(std::string("no front matter (SKILL.md must start with a line ---)"));
      body_start = position;
      continue;
    }
    if (IsFence(line) || Trim(line) == "...") {
      closed = true;
      body_start = position;
      break;
    }
    lines.push_back(line);
  }
  if (body_start == std::string_view::npos) {
    return Err(std::string("no front matter (SKILL.md must start with a line ---)"));
  }
  if (!closed) return Err(std::string("the front matter does not end (no closing --- line)"));

  SkillDocument document;
  bool has_name = false;
  bool has_description = false;
  for (std::size_t i = 0; i < lines.size();) {
    const std::string_view line = lines[i];
    const std::size_t number = i + 2;  // the file's line number
    ++i;
    if (IsBlank(line) || Indent(line) > 0 || Trim(line).front() == '#') continue;
    // "key: value" or "key:" at the end of the line.
    std::size_t colon = std::string_view::npos;
    for (std::size_t k = 0; k < line.size(); ++k) {
      if (line[k] == ':' && (k + 1 == line.size() || line[k + 1] == ' ' || line[k + 1] == '\t')) {
        colon = k;
        break;
      }
    }
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') &&
        key.back() == key.front()) {
      key = key.substr(1, key.size() - 2);
    }
    std::vector<std::string_view> continuation;
    while (i < lines.size() && (IsBlank(lines[i]) || Indent(lines[i]) > 0)) {
      continuation.push_back(lines[i++]);
    }
    if (key != "name" && key != "description") continue;
    auto value = Value(Trim(line.substr(colon + 1)), continuation);
    if (!value) {
      return Err("line " + std::to_string(number) + " of SKILL.md (" + std::string(key) +
                 "): " + value.error());
    }
    std::string trimmed(Trim(*value));
    while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' '))
      trimmed.pop_back();
    if (key == "name") {
      document.name = std::move(trimmed);
      has_name = !document.name.empty();
    } else {
      document.description = std::move(trimmed);
      has_description = !document.description.empty();
    }
  }
  if (!has_name) return Err(std::string("no name in the front matter"));
  if (!has_description) return Err(std::string("no description in the front matter"));
  std::string_view body = text.substr(std::min(body_start, text.size()));
  while (!body.empty()) {
    const std::size_t end = body.find('\n');
    if (end == std::string_view::npos || !IsBlank(body.substr(0, end))) break;
    body.remove_prefix(end + 1);
  }
  document.body = std::string(body);
  return document;
}

}  // namespace ikigai::skills
