// Capturing a command's output with bounded memory.
//
// A command may print gigabytes; the answer shows at most about 60 KB, yet
// the whole output must stay available (DECISIONS §4: full_output_path).
// So the first kHeadBytes stay in memory. Past that, everything (the head so
// far and all that follows) streams to a spill file, and memory keeps only
// a rolling window of the last kTailWindow bytes. The spill file stops
// growing at a cap; the counts go on, so the answer can say what was lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/unique_fd.h"

namespace ikigai::bash_tool {

// Where the complete output went.
struct SavedOutput {
  std::string path;         // empty: no file could be made (problem says why)
  std::uint64_t bytes = 0;  // bytes in the file; less than the total if cut
  std::string problem;      // why the file is missing or incomplete
};

class OutputCapture {
 public:
  static constexpr std::size_t kHeadBytes = 256 * 1024;
  // More than the whole answer's budget, so a tail cut to fit always has
  // enough text to choose from.
  static constexpr std::size_t kTailWindow = 64 * 1024;
  static constexpr std::uint64_t kSpillCap = std::uint64_t{64} << 20;

  // Spill files are created in `spill_directory` as ikigai-bash-XXXXXX.log.
  explicit OutputCapture(std::string spill_directory, std::uint64_t spill_cap = kSpillCap);

  void Append(std::string_view bytes);

  std::uint64_t total_bytes() const { return total_bytes_; }
  std::uint64_t total_newlines() const { return total_newlines_; }
  // True while the whole output is in head().
  bool all_in_memory() const { return !spilled_; }
  // The first min(total, kHeadBytes) bytes.
  std::string_view head() const { return head_; }
  // The last min(total, kTailWindow) bytes or more.
  std::string_view tail() const;

  // Makes sure a file holds the output, writing it now if it was all in
  // memory, and says where it is.
  const SavedOutput& Save();

 private:
  void StartFile();
  void WriteToFile(std::string_view bytes);

  std::string spill_directory_;
  std::uint64_t spill_cap_;
  std::string head_;
  std::string tail_;
  bool spilled_ = false;
  bool file_started_ = false;
  UniqueFd file_;
  SavedOutput saved_;
  std::uint64_t total_bytes_ = 0;
  std::uint64_t total_newlines_ = 0;
};

// $TMPDIR if set and not empty, else /tmp.
std::string DefaultSpillDirectory();

}  // namespace ikigai::bash_tool
