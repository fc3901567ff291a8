// errno to the error a model can act on, with the seeds/000 texts first
// ("File not found: P") and the next step after them.
#pragma once

#include <string_view>

#include "toolkit/tool_error.h"

namespace ikigai::toolkit {

// What the tool was doing when errno was set; decides the fallback code.
enum class FileOp { kOpen, kRead, kWrite };

ToolError FileError(int err, std::string_view path, FileOp op);

}  // namespace ikigai::toolkit
