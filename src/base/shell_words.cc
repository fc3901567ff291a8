#include "base/shell_words.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace ikigai::shell {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Characters that end an unquoted word.
bool IsMeta(char c) {
  return IsBlank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
         c == '<' || c == '>';
}

bool IsReservedWord(std::string_view word) {
  for (std::string_view reserved : {"then", "do", "else", "elif", "if", "while", "until", "time"}) {
    if (word == reserved) return true;
  }
  return false;
}

// Finds the substitutions of a text, reading it as bash does, so that no
// quote it misreads can hide one: a single quote inside double quotes or a
// here-document body is a plain character, a double quote inside $(...)
// starts a string of its own.
class Scanner {
 public:
  explicit Scanner(std::string_view s, std::size_t at = 0, int depth = 0)
      : s_(s), i_(at), depth_(depth) {}

  std::vector<Substitution> ScanScript() {
    Script(kNoClose);
    return std::move(found_);
  }

  std::vector<Substitution> ScanHereDocBody() {
    Text(/*here_doc=*/true);
    return std::move(found_);
  }

  // At a '$' or '`': moves past the expansion it starts; returns where it
  // ends, and records it (when it is a substitution).
  std::size_t SkipExpansion(bool in_double) {
    if (s_[i_] == '`') {
      ++i_;
      Backquote(in_double);
    } else {
      Dollar(in_double);
    }
    return i_;
  }

  // At "((": whether it is an arithmetic command (closed by "))"); if so,
  // moves past it and records it.
  bool SkipArithmeticCommand() {
    const std::size_t start = i_;
    i_ += 2;
    if (Arithmetic(')')) return true;
    i_ = start;
    return false;
  }

  const std::vector<Substitution>& found() const { return found_; }
  std::size_t position() const { return i_; }

 private:
  static constexpr char kNoClose = '\0';

  struct HereDoc {
    std::string delimiter;
    bool strip_tabs;
    bool expands;  // an unquoted delimiter: the body is expanded
  };

  char Peek(std::size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }

  void Record(Substitution::Kind kind, std::string body) {
    if (depth_ == 0) found_.push_back({kind, std::move(body)});
  }

  // Shell text up to `close` (the ')' of a substitution or subshell) or the
  // end; i_ is left on the ')'.
  void Script(char close) {
    bool word_start = true;     // a '#' here starts a comment
    bool command_start = true;  // a word here is a command name or reserved word
    bool in_reserved = false;   // the word being read is a reserved word
    int open_cases = 0;         // inside case ... esac, a ')' ends a pattern
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == close && open_cases == 0) return;
      if (word_start && !IsMeta(c)) {
        std::size_t end = i_;
        while (end < s_.size() && std::isalpha(static_cast<unsigned char>(s_[end]))) ++end;
        const std::string_view word = s_.substr(i_, end - i_);
        const bool whole = end == s_.size() || IsMeta(s_[end]);
        if (whole && command_start && word == "case") ++open_cases;
        if (whole && command_start && word == "esac" && open_cases > 0) --open_cases;
        in_reserved = whole && command_start && IsReservedWord(word);
      }
      const bool comment = c == '#' && word_start;
      word_start = IsMeta(c);
      if (c == ';' || c == '&' || c == '|' || c == '(' || c == '\n') {
        command_start = true;
      } else if (IsBlank(c)) {
        command_start = command_start || in_reserved;
        in_reserved = false;
      } else {
        command_start = false;
      }
      switch (c) {
        case '\\':
          i_ = std::min(i_ + 2, s_.size());
          break;
        case '\'':
          SkipSingleQuoted();
          break;
        case '"':
          ++i_;
          Text(/*here_doc=*/false);
          break;
        case '`':
          ++i_;
          Backquote(/*in_double=*/false);
          break;
        case '$':
          Dollar(/*in_double=*/false);
          break;
        case '<':
        case '>':
          if (Peek(1) == '(') {
            i_ += 2;
            Nested(Substitution::Kind::kProcess);
          } else if (c == '<' && Peek(1) == '<' && Peek(2) == '<') {
            i_ += 3;
          } else if (c == '<' && Peek(1) == '<') {
            i_ += 2;
            HereDocOperator();
          } else {
            ++i_;
          }
          break;
        case '(':
          if (Peek(1) == '(' && SkipArithmeticCommand()) break;
          ++i_;
          Script(')');
          if (i_ < s_.size()) ++i_;
          break;
        case '#':
          if (comment) {
            while (i_ < s_.size() && s_[i_] != '\n') ++i_;
          } else {
            ++i_;
          }
          break;
        case '\n':
          ++i_;
          HereDocBodies();
          break;
        default:
          ++i_;
          break;
      }
    }
  }

  // The inside of "..." (from after the opening quote; ends after the
  // closing one), or a whole here-document body.
  void Text(bool here_doc) {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"' && !here_doc) {
        ++i_;
        return;
      }
      if (c == '\\') {
        i_ = std::min(i_ + 2, s_.size());
      } else if (c == '`') {
        ++i_;
        Backquote(/*in_double=*/true);
      } else if (c == '$') {
        Dollar(/*in_double=*/true);
      } else {
        ++i_;
      }
    }
  }

  void SkipSingleQuoted() {
    const std::size_t close = s_.find('\'', i_ + 1);
    i_ = close == std::string_view::npos ? s_.size() : close + 1;
  }

  // From after `$(`, `<(` or `>(`: the script up to the matching ')'.
  void Nested(Substitution::Kind kind) {
    const std::size_t start = i_;
    ++depth_;
    Script(')');
    --depth_;
    Record(kind, std::string(s_.substr(start, i_ - start)));
    if (i_ < s_.size()) ++i_;
  }

  // From after the opening backquote: the body, its escapes undone.
  void Backquote(bool in_double) {
    std::string body;
    while (i_ < s_.size() && s_[i_] != '`') {
      const char next = Peek(1);
      if (s_[i_] == '\\' &&
          (next == '$' || next == '`' || next == '\\' || (in_double && next == '"'))) {
        body += next;
        i_ += 2;
        continue;
      }
      body += s_[i_++];
    }
    if (i_ < s_.size()) ++i_;
    Record(Substitution::Kind::kBackquote, std::move(body));
  }

  // From after "((", "$((" or "$[": an arithmetic expression up to "))" or
  // "]". Quotes are plain characters there; substitutions are expanded.
  // False if a ')' closes before "))": then "((" were two parentheses.
  bool Arithmetic(char close) {
    const std::size_t start = i_;
    const char open = close == ')' ? '(' : '[';
    int depth = 0;
    ++depth_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == open) {
        ++depth;
      } else if (c == close && depth > 0) {
        --depth;
      } else if (c == close) {
        if (close == ')' && Peek(1) != ')') {
          --depth_;
          return false;
        }
        --depth_;
        Record(Substitution::Kind::kArithmetic, std::string(s_.substr(start, i_ - start)));
        i_ += close == ')' ? 2 : 1;
        return true;
      } else if (c == '\\') {
        ++i_;
      } else if (c == '`') {
        ++i_;
        Backquote(/*in_double=*/true);
        continue;
      } else if (c == '$') {
        Dollar(/*in_double=*/true);
        continue;
      }
      ++i_;
    }
    --depth_;
    Record(Substitution::Kind::kArithmetic, std::string(s_.substr(start)));
    return true;
  }

  // At a '$'.
  void Dollar(bool in_double) {
    const char next = Peek(1);
    if (next == '(') {
      const std::size_t start = i_;
      if (Peek(2) == '(') {
        i_ += 3;
        if (Arithmetic(')')) return;
        i_ = start;
      }
      i_ += 2;
      Nested(Substitution::Kind::kCommand);
    } else if (next == '[') {
      i_ += 2;
      Arithmetic(']');
    } else if (next == '{') {
      i_ += 2;
      Parameter(in_double);
    } else if (next == '\'' && !in_double) {
      // $'...': backslash escapes, no expansion.
      i_ += 2;
      while (i_ < s_.size() && s_[i_] != '\'') i_ += s_[i_] == '\\' ? 2 : 1;
      i_ = std::min(i_ + 1, s_.size());
    } else {
      ++i_;
    }
  }

  // From after "${": up to the matching '}'.
  void Parameter(bool in_double) {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '}') {
        ++i_;
        return;
      }
      if (c == '\\') {
        i_ = std::min(i_ + 2, s_.size());
      } else if (c == '\'' && !in_double) {
        SkipSingleQuoted();
      } else if (c == '"') {
        ++i_;
        Text(/*here_doc=*/false);
      } else if (c == '`') {
        ++i_;
        Backquote(in_double);
      } else if (c == '$') {
        Dollar(in_double);
      } else {
        ++i_;
      }
    }
  }

  // From after "<<": the delimiter word; its body starts on the next line.
  void HereDocOperator() {
    HereDoc doc{"", false, true};
    if (Peek(0) == '-') {
      doc.strip_tabs = true;
      ++i_;
    }
    while (i_ < s_.size() && IsBlank(s_[i_])) ++i_;
    while (i_ < s_.size() && !IsMeta(s_[i_])) {
      const char c = s_[i_];
      if (c == '\'' || c == '"') {
        doc.expands = false;
        const std::size_t close = s_.find(c, i_ + 1);
        const std::size_t end = close == std::string_view::npos ? s_.size() : close;
        doc.delimiter += s_.substr(i_ + 1, end - i_ - 1);
        i_ = std::min(end + 1, s_.size());
      } else if (c == '\\') {
        doc.expands = false;
        if (i_ + 1 < s_.size()) doc.delimiter += s_[i_ + 1];
        i_ = std::min(i_ + 2, s_.size());
      } else if (c == '$' && (Peek(1) == '\'' || Peek(1) == '"')) {
        ++i_;
      } else {
        doc.delimiter += c;
        ++i_;
      }
    }
    if (!doc.delimiter.empty()) here_docs_.push_back(std::move(doc));
  }

  // At the start of a line: the bodies of the here-documents opened on the
  // line before, each up to its delimiter line.
  void HereDocBodies() {
    for (const HereDoc& doc : here_docs_) {
      const std::size_t start = i_;
      std::size_t end = s_.size();
      while (i_ < s_.size()) {
        const std::size_t line_start = i_;
        const std::size_t line_end = std::min(s_.find('\n', i_), s_.size());
        std::string_view line = s_.substr(i_, line_end - i_);
        i_ = std::min(line_end + 1, s_.size());
        if (doc.strip_tabs) line.remove_prefix(std::min(line.find_first_not_of('\t'), line.size()));
        if (line == doc.delimiter) {
          end = line_start;
          break;
        }
      }
      if (doc.expands) {
        auto inside = Scanner(s_.substr(start, end - start), 0, depth_).ScanHereDocBody();
        found_.insert(found_.end(), inside.begin(), inside.end());
      }
    }
    here_docs_.clear();
  }

  std::string_view s_;
  std::size_t i_;
  int depth_;
  std::vector<HereDoc> here_docs_;
  std::vector<Substitution> found_;
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(std::string& out, unsigned long code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | ((code >> 18) & 0x07));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

enum class Pending {
  kWord,
  kOutputFile,
  kDuplicateOutput,  // after >&: a descriptor, or a file for stdout and stderr
  kInputFile,
  kHereDocDelimiter,
  kStrippedHereDocDelimiter
};

struct HereDoc {
  std::string delimiter;
  bool strip_tabs;  // <<- allows the closing line to be indented with tabs
};

// "1", "-", "1-": what >& and <& take to duplicate or close a descriptor.
bool IsDescriptor(std::string_view word) {
  if (word.ends_with('-')) word.remove_suffix(1);
  return std::all_of(word.begin(), word.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

class Splitter {
 public:
  explicit Splitter(std::string_view text) : s_(text) {}

  std::vector<SimpleCommand> Run() {
    while (i_ < s_.size()) Step();
    EndCommand();
    return std::move(commands_);
  }

 private:
  void Step() {
    const char c = s_[i_];
    switch (c) {
      case ' ':
      case '\t':
      case '\r':
        EndWord();
        ++i_;
        return;
      case '\n':
        EndCommand();
        ++i_;
        SkipHereDocBodies();
        return;
      case '(':
        // ((...)) is arithmetic, one word: a << in it is a shift, not a
        // here-document that would hide the lines after it.
        if (Peek(1) == '(') {
          Scanner scanner(s_, i_);
          if (scanner.SkipArithmeticCommand()) {
            AppendRawUpTo(scanner.position());
            return;
          }
        }
        [[fallthrough]];
      case ';':
      case '&':
      case '|':
      case ')':
      case '`':
        if (c == '&' && Peek(1) == '>') {  // &> and &>>: stdout and stderr to a file
          EndWord();
          i_ += Peek(2) == '>' ? 3 : 2;
          pending_ = Pending::kOutputFile;
          return;
        }
        EndCommand();
        ++i_;
        return;
      case '>':
        Redirection(/*output=*/true);
        return;
      case '<':
        Redirection(/*output=*/false);
        return;
      case '#':
        if (!in_word_) {
          while (i_ < s_.size() && s_[i_] != '\n') ++i_;
          return;
        }
        break;
      case '\'':
        Quoted('\'');
        return;
      case '"':
        Quoted('"');
        return;
      case '\\':
        if (i_ + 1 < s_.size()) {
          if (s_[i_ + 1] != '\n') {  // backslash-newline joins lines
            word_ += s_[i_ + 1];
            in_word_ = true;
          }
          i_ += 2;
          return;
        }
        break;
      case '$':
        if (Peek(1) == '(' || Peek(1) == '[') {
          Scanner scanner(s_, i_);
          const std::size_t end = scanner.SkipExpansion(/*in_double=*/false);
          if (scanner.found().size() == 1 &&
              scanner.found()[0].kind == Substitution::Kind::kArithmetic) {
            AppendRawUpTo(end);  // $((...)) and $[...]: one word
            return;
          }
          if (Peek(1) == '(') {  // $( starts a command of its own
            EndCommand();
            i_ += 2;
            return;
          }
        }
        if (Peek(1) == '\'') {
          AnsiCQuoted();
          return;
        }
        if (Peek(1) == '"') {  // $"...": a translated string, quoted as "..."
          ++i_;
          Quoted('"');
          return;
        }
        break;
      default:
        break;
    }
    word_ += c;
    in_word_ = true;
    ++i_;
  }

  char Peek(std::size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }

  void AppendRawUpTo(std::size_t end) {
    word_ += s_.substr(i_, end - i_);
    in_word_ = true;
    i_ = end;
  }

  void Redirection(bool output) {
    // A word of digits right before the operator is a descriptor number.
    if (in_word_ && !word_.empty() && std::all_of(word_.begin(), word_.end(), [](char d) {
          return std::isdigit(static_cast<unsigned char>(d));
        })) {
      word_.clear();
      in_word_ = false;
    }
    EndWord();
    ++i_;
    if (output) {
      if (Peek(0) == '&') {  // >&N duplicates a descriptor, >&FILE writes FILE
        ++i_;
        pending_ = Pending::kDuplicateOutput;
        return;
      }
      if (Peek(0) == '>' || Peek(0) == '|') ++i_;  // >> >|
      pending_ = Pending::kOutputFile;
      return;
    }
    if (Peek(0) == '<' && Peek(1) == '<') {  // <<< here-string: a word of data
      i_ += 2;
      pending_ = Pending::kInputFile;
    } else if (Peek(0) == '<') {
      ++i_;
      pending_ = Pending::kHereDocDelimiter;
      if (Peek(0) == '-') {
        ++i_;
        pending_ = Pending::kStrippedHereDocDelimiter;
      }
    } else if (Peek(0) == '>') {  // <> opens for reading and writing, creating the file
      ++i_;
      pending_ = Pending::kOutputFile;
    } else {
      if (Peek(0) == '&') ++i_;  // <&
      pending_ = Pending::kInputFile;
    }
  }

  void Quoted(char quote) {
    in_word_ = true;
    ++i_;
    while (i_ < s_.size() && s_[i_] != quote) {
      if (quote == '"' && (s_[i_] == '`' || (s_[i_] == '$' && (Peek(1) == '(' || Peek(1) == '{' ||
                                                               Peek(1) == '[')))) {
        // A substitution keeps its own quotes: "$(echo ")")" is one word.
        AppendRawUpTo(Scanner(s_, i_).SkipExpansion(/*in_double=*/true));
        continue;
      }
      if (quote == '"' && s_[i_] == '\\' && i_ + 1 < s_.size() &&
          std::string_view("\"\\$`\n").find(s_[i_ + 1]) != std::string_view::npos) {
        ++i_;
      }
      word_ += s_[i_++];
    }
    ++i_;  // the closing quote
  }

  // $'...' with its backslash escapes decoded: $'\x72m' is rm.
  void AnsiCQuoted() {
    in_word_ = true;
    i_ += 2;
    while (i_ < s_.size() && s_[i_] != '\'') {
      if (s_[i_] != '\\' || i_ + 1 >= s_.size()) {
        word_ += s_[i_++];
        continue;
      }
      const char e = s_[i_ + 1];
      i_ += 2;
      switch (e) {
        case 'a':
          word_ += '\a';
          break;
        case 'b':
          word_ += '\b';
          break;
        case 'e':
        case 'E':
          word_ += '\x1b';
          break;
        case 'f':
          word_ += '\f';
          break;
        case 'n':
          word_ += '\n';
          break;
        case 'r':
          word_ += '\r';
          break;
        case 't':
          word_ += '\t';
          break;
        case 'v':
          word_ += '\v';
          break;
        case 'c':
          if (i_ < s_.size()) word_ += static_cast<char>(s_[i_++] & 0x1F);
          break;
        case 'x':
        case 'u':
        case 'U': {
          const std::size_t most = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          unsigned long code = 0;
          std::size_t n = 0;
          while (n < most && i_ < s_.size() && HexValue(s_[i_]) >= 0) {
            code = code * 16 + static_cast<unsigned long>(HexValue(s_[i_++]));
            ++n;
          }
          if (n == 0) {
            word_ += '\\';
            word_ += e;
          } else if (e == 'x') {
            word_ += static_cast<char>(code);
          } else {
            AppendUtf8(word_, code);
          }
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            unsigned code = static_cast<unsigned>(e - '0');
            for (int n = 1; n < 3 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++n) {
              code = code * 8 + static_cast<unsigned>(s_[i_++] - '0');
            }
            word_ += static_cast<char>(code);
          } else if (e == '\\' || e == '\'' || e == '"' || e == '?') {
            word_ += e;
          } else {
            word_ += '\\';
            word_ += e;
          }
      }
    }
    ++i_;  // the closing quote
  }

  void EndWord() {
    if (!in_word_) return;
    switch (pending_) {
      case Pending::kWord:
        current_.words.push_back(std::move(word_));
        break;
      case Pending::kOutputFile:
        current_.output_files.push_back(std::move(word_));
        break;
      case Pending::kDuplicateOutput:
        if (!IsDescriptor(word_)) current_.output_files.push_back(std::move(word_));
        break;
      case Pending::kInputFile:
        break;
      case Pending::kHereDocDelimiter:
      case Pending::kStrippedHereDocDelimiter:
        here_docs_.push_back({std::move(word_), pending_ == Pending::kStrippedHereDocDelimiter});
        break;
    }
    word_.clear();
    in_word_ = false;
    pending_ = Pending::kWord;
  }

  void EndCommand() {
    EndWord();
    pending_ = Pending::kWord;
    if (!current_.words.empty() || !current_.output_files.empty()) {
      commands_.push_back(std::move(current_));
    }
    current_ = {};
  }

  // At the start of a line: skips the bodies of the here-documents opened on
  // the line before, each up to its delimiter line.
  void SkipHereDocBodies() {
    for (const HereDoc& doc : here_docs_) {
      while (i_ < s_.size()) {
        const std::size_t end = std::min(s_.find('\n', i_), s_.size());
        std::string_view line = s_.substr(i_, end - i_);
        i_ = end + 1;
        if (doc.strip_tabs) line.remove_prefix(std::min(line.find_first_not_of('\t'), line.size()));
        if (line == doc.delimiter) break;
      }
    }
    here_docs_.clear();
    i_ = std::min(i_, s_.size());
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string word_;
  bool in_word_ = false;
  Pending pending_ = Pending::kWord;
  SimpleCommand current_;
  std::vector<SimpleCommand> commands_;
  std::vector<HereDoc> here_docs_;
};

}  // namespace

std::vector<SimpleCommand> SplitCommands(std::string_view command_line) {
  return Splitter(command_line).Run();
}

std::vector<Substitution> FindSubstitutions(std::string_view command_line) {
  return Scanner(command_line).ScanScript();
}

bool HasSubstitution(std::string_view command_line) {
  return !FindSubstitutions(command_line).empty();
}

}  // namespace ikigai::shell
