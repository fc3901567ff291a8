#include "repl/history.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace ikigai::repl {

std::string DefaultHistoryPath() {
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : ".") + "/.ikigai/history";
}

std::string EncodeHistoryEntry(std::string_view entry) {
  std::string line;
  line.reserve(entry.size());
  for (char c : entry) {
    if (c == '\\') {
      line += "\\\\";
    } else if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else {
      line += c;
    }
  }
  return line;
}

std::string DecodeHistoryEntry(std::string_view line) {
  std::string entry;
  entry.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\' || i + 1 == line.size()) {
      entry += line[i];
      continue;
    }
    const char next = line[++i];
    entry += next == 'n' ? '\n' : next == 'r' ? '\r' : next;
  }
  return entry;
}

std::vector<std::string> HistoryFile::Load() const {
  std::vector<std::string> lines;
  {
    std::ifstream in(path_, std::ios::binary);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) lines.push_back(std::move(line));
    }
  }
  if (lines.size() > 2 * limit_) {
    // Grown past twice the limit: keep the last `limit` lines, replacing the
    // file in one rename so that a crash leaves the old one whole.
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(limit_));
    const std::string temporary = path_ + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
      std::string all;
      for (const auto& line : lines) all += line + "\n";
      const bool written = ::write(fd, all.data(), all.size()) == static_cast<ssize_t>(all.size());
      ::close(fd);
      if (!written || ::rename(temporary.c_str(), path_.c_str()) != 0) ::unlink(temporary.c_str());
    }
  } else if (lines.size() > limit_) {
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(limit_));
  }
  std::vector<std::string> entries;
  entries.reserve(lines.size());
  for (const auto& line : lines) entries.push_back(DecodeHistoryEntry(line));
  return entries;
}

bool HistoryFile::Append(std::string_view entry) const {
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 && errno == ENOENT) {
    const auto slash = path_.rfind('/');
    if (slash != std::string::npos && slash > 0) ::mkdir(path_.substr(0, slash).c_str(), 0700);
    fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  }
  if (fd < 0) return false;
  // One write: appends from two sessions never interleave within a line.
  const std::string line = EncodeHistoryEntry(entry) + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  return written;
}

}  // namespace ikigai::repl
