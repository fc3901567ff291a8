// Reading a task's output in pieces: each call returns what was appended to
// `output` since the previous call, and moves the task's read_offset past
// it (src/base/task_files.h). A piece larger than the output budget is cut
// at a line boundary; the rest comes with the next call, so nothing is
// lost and nothing is returned twice. Concurrent readers of one task take
// turns (a lock on read_offset), each getting a different piece.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"

namespace ikigai::task_output {

struct Piece {
  std::string text;               // valid UTF-8, fits the budget
  std::uint64_t offset = 0;       // where in `output` the piece starts
  std::uint64_t next_offset = 0;  // where the next piece will start
  std::uint64_t remaining = 0;    // bytes already written after next_offset
  // The piece stops short of what was written because of the budget (not
  // merely before a character still being written).
  bool cut = false;
};

// `ended`: the task has recorded its end, so its output is complete and a
// character cut at its end is not waited for. `budget`: the escaped size the
// text may take in the answer.
Result<Piece, std::string> ReadNewOutput(const std::string& task_dir, bool ended,
                                         std::size_t budget);

}  // namespace ikigai::task_output
