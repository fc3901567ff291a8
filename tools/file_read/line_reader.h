// Reading a window of lines from a file of any size in constant memory.
//
// The file is read forward in fixed-size chunks; lines before `offset` are
// only counted (memchr for '\n'), never kept. Lines inside the window are
// repaired to valid UTF-8 and appended while their escaped JSON size fits
// the budget. A single line longer than the budget (a minified file, a run
// of NULs in a sparse file) is never held whole: only as much of it as could
// be shown is buffered, and it is cut at a character boundary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"

namespace ikigai::file_read {

struct LineWindow {
  std::int64_t offset = 1;            // first line, 1-based
  std::optional<std::int64_t> limit;  // number of lines; all when absent
  std::size_t budget = 0;             // escaped size allowed for the text
};

struct LinesRead {
  std::string text;              // valid UTF-8
  std::int64_t lines = 0;        // lines (or parts of a line) returned
  bool truncated = false;        // stopped by the budget
  std::int64_t next_offset = 0;  // where to continue when truncated
};

// Reads from `fd` (positioned at the start of the file). Errors are errno.
Result<LinesRead, int> ReadLines(int fd, const LineWindow& window);

}  // namespace ikigai::file_read
