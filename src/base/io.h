// Whole reads and writes on descriptors, and making directories: the loops
// every caller would otherwise write again (short writes, EINTR).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

#include "base/result.h"

namespace ikigai {

// Writes all of `data`, however many write() calls it takes. False on an
// error (errno says which); a non-blocking descriptor that is full is an
// error (EAGAIN).
bool WriteAll(int fd, std::string_view data);

// Appends to `out` everything up to end of file. False on an error, or
// when there is more than `max_bytes` (errno EFBIG); `out` then holds what
// was read.
bool ReadAll(int fd, std::string& out, std::size_t max_bytes = static_cast<std::size_t>(-1));

// Creates `dir` and its missing parents with `mode`; an existing directory
// is fine. Errors name the directory and the reason.
Result<std::monostate, std::string> MakeDirectories(const std::string& dir, mode_t mode);

}  // namespace ikigai
