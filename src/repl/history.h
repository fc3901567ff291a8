// The REPL's history file, ~/.ikigai/history: one entry per line, newlines
// and backslashes escaped (a multi-line message is one entry). Each entry is
// appended as it is entered (O_APPEND, so two sessions at once both keep
// theirs); loading keeps the last `limit` entries and rewrites the file when
// it has grown past twice that. The file is private (0600): messages may
// hold secrets.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ikigai::repl {

class HistoryFile {
 public:
  explicit HistoryFile(std::string path, std::size_t limit = 1000)
      : path_(std::move(path)), limit_(limit) {}

  // The last `limit` entries, oldest first; none if the file is missing.
  std::vector<std::string> Load() const;
  // Appends one entry (creating the file and its directory if needed);
  // false if it cannot be written.
  bool Append(std::string_view entry) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::size_t limit_;
};

// ~/.ikigai/history
std::string DefaultHistoryPath();

// One line of the file and back: "\n" -> "\\n", "\\" -> "\\\\".
std::string EncodeHistoryEntry(std::string_view entry);
std::string DecodeHistoryEntry(std::string_view line);

}  // namespace ikigai::repl
