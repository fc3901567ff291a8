// Fitting a command's output into the answer's budget.
//
// Output that fits (repaired to valid UTF-8, counted as escaped JSON text) is
// returned whole, minus one trailing newline. Output that does not keeps its
// head (a third of the budget) and its tail (the rest: the end of a build log
// matters most), both cut at line boundaries, joined by a marker line:
//
//   [... 195432 lines (1045678 bytes) omitted; full output (200000 lines,
//   1288894 bytes) in /tmp/ikigai-bash-Ab12Cd.log ...]
//
// (on one line). The complete raw output is in that file (the capture's
// spill file, or one written now if the output was all in memory), so
// nothing is lost.
#pragma once

#include <cstddef>
#include <string>

#include "output_capture.h"

namespace ikigai::bash_tool {

struct FittedOutput {
  std::string text;
  bool truncated = false;
  std::string full_output_path;  // set when truncated and a file was made
};

// `budget`: the escaped size the text may take inside the JSON string.
FittedOutput FitOutput(OutputCapture& capture, std::size_t budget);

}  // namespace ikigai::bash_tool
