// Reading the file to edit, whole, with errors the model can act on.
#pragma once

#include <string>

#include "base/result.h"
#include "toolkit/tool_error.h"

namespace ikigai::file_edit {

// The bytes of the regular file at `path` (relative to the working
// directory; symbolic links followed). A directory or another non-regular
// file is an error that says what to do instead; it is never opened for
// reading, so a FIFO cannot block the tool.
Result<std::string, toolkit::ToolError> ReadWholeFile(const std::string& path);

}  // namespace ikigai::file_edit
