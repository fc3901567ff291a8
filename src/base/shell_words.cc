#include "base/shell_words.h"

#include <algorithm>
#include <cctype>

namespace ikigai::shell {
namespace {

enum class Pending { kWord, kOutputFile, kInputFile, kHereDocDelimiter, kStrippedHereDocDelimiter };

struct HereDoc {
  std::string delimiter;
  bool strip_tabs;  // <<- allows the closing line to be indented with tabs
};

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
      case ';':
      case '&':
      case '|':
      case '(':
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
        if (Peek(1) == '(') {  // $( starts a command of its own
          EndCommand();
          i_ += 2;
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
      if (Peek(0) == '>' || Peek(0) == '|' || Peek(0) == '&') ++i_;  // >> >| >&
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
    } else {
      if (Peek(0) == '&' || Peek(0) == '>') ++i_;  // <& <>
      pending_ = Pending::kInputFile;
    }
  }

  void Quoted(char quote) {
    in_word_ = true;
    ++i_;
    while (i_ < s_.size() && s_[i_] != quote) {
      if (quote == '"' && s_[i_] == '\\' && i_ + 1 < s_.size() &&
          std::string_view("\"\\$`\n").find(s_[i_ + 1]) != std::string_view::npos) {
        ++i_;
      }
      word_ += s_[i_++];
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

bool HasSubstitution(std::string_view s) {
  bool single = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (single) {
      single = c != '\'';
      continue;
    }
    if (c == '\\') {
      ++i;
    } else if (c == '\'') {
      single = true;
    } else if (c == '`') {
      return true;
    } else if ((c == '$' || c == '<' || c == '>') && i + 1 < s.size() && s[i + 1] == '(') {
      return true;
    }
  }
  return false;
}

}  // namespace ikigai::shell
