// Searching one file for grep-tool and rendering what it found.
//
// A file is read whole into a buffer the worker reuses (mapped instead when
// large), skipped if binary (a NUL in its first 8 KB) or if the matcher's
// prefilter rules it out, and then scanned match by match, counting
// newlines only between matches. Rendering produces grep's lines
// ("path:12: text", context "path-13- text", "--" between groups), each
// line repaired to UTF-8 and cut at 500 bytes, up to a size cap: more than
// the output budget can never be shown.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "search/line_matcher.h"

namespace ikigai::grep_tool {

enum class OutputMode { kContent, kFilesWithMatches, kCount };

struct SearchOptions {
  OutputMode mode = OutputMode::kContent;
  std::size_t context = 0;     // lines before and after each match
  std::size_t render_cap = 0;  // bytes of rendered text kept per file
};

struct FileResult {
  std::size_t matches = 0;         // matching lines
  bool binary = false;             // skipped as binary
  std::string rendered;            // content mode: the rendered lines, each ending in '\n'
  std::size_t rendered_lines = 0;  // output lines in `rendered` (matches and context)
  bool rendered_complete = true;   // false when cut at render_cap
};

// Owns the read buffer one worker reuses across files.
class FileSearcher {
 public:
  FileSearcher(const search::LineMatcher& matcher, SearchOptions options)
      : matcher_(matcher), options_(options) {}
  ~FileSearcher();
  FileSearcher(const FileSearcher&) = delete;
  FileSearcher& operator=(const FileSearcher&) = delete;

  // `path` is opened as given; `display` is what the output shows.
  // Unreadable files give an empty result (as grep -s).
  FileResult Search(const std::string& path, std::string_view display, bool render);

 private:
  bool Load(const std::string& path);
  void Render(std::string_view text, std::string_view display,
              const std::vector<search::LineSpan>& matches, std::vector<std::size_t> numbers,
              FileResult& result) const;

  const search::LineMatcher& matcher_;
  SearchOptions options_;
  std::string buffer_;
  void* mapped_ = nullptr;
  std::size_t mapped_size_ = 0;
  std::string_view text_;
};

// Cuts a line to at most 500 bytes (at a character boundary) with a marker.
std::string CutLongLine(std::string_view line);

inline constexpr std::size_t kMaxLineBytes = 500;

}  // namespace ikigai::grep_tool
