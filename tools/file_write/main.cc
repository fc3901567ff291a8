// file-write-tool: write content to a file, atomically (seeds/000, DECISIONS §4).
#include <string>

#include "toolkit/atomic_file.h"
#include "toolkit/error_codes.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Json;

constexpr std::string_view kSchema = R"json({
  "name": "file_write",
  "description": "Write content to a file (creates or overwrites). The write is atomic: readers see the old file or the new one, and a failure (a full disk) leaves the old file whole. An existing file keeps its permissions; a symbolic link is written through to its target. The parent directory must exist. Returns: {output, bytes, created}.",
  "parameters": {
    "type": "object",
    "properties": {
      "file_path": {
        "type": "string",
        "description": "Absolute or relative path to file"
      },
      "content": {
        "type": "string",
        "description": "Content to write to file"
      }
    },
    "required": ["file_path", "content"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true}
})json";

Json Run(const Args& args, const CallContext&) {
  const std::string& path = args.String("file_path");
  const std::string& content = args.String("content");
  if (path.empty()) {
    return ikigai::toolkit::ToolError{ikigai::toolkit::code::kInvalidArg,
                                      "Parameter 'file_path' cannot be empty."}
        .ToJson();
  }
  auto written = ikigai::toolkit::WriteFileAtomically(path, content);
  if (!written) return written.error().ToJson();
  return Json{{"output", "Wrote " + std::to_string(content.size()) + " bytes to " +
                             ikigai::toolkit::BaseName(path)},
              {"bytes", content.size()},
              {"created", written->created}};
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
