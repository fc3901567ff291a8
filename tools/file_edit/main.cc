// file-edit-tool: replace text in a file, atomically (seeds/000 "Tool:
// file-edit", DECISIONS §4). The matching lives in edit.h; this file reads,
// writes and reports.
#include <string>

#include "file_edit/edit.h"
#include "file_edit/read_whole_file.h"
#include "toolkit/atomic_file.h"
#include "toolkit/error_codes.h"
#include "toolkit/tool_main.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;

constexpr std::string_view kSchema = R"json({
  "name": "file_edit",
  "description": "Edit a file by replacing exact text matches. You must read the file before editing. If old_string is not found exactly, a single place that differs from it only in whitespace (tab or space indentation, trailing spaces, CRLF or LF line endings) is edited instead, with new_string re-indented to the file's style. The write is atomic and keeps the file's permissions. Returns: {output, replacements, match?}.",
  "parameters": {
    "type": "object",
    "properties": {
      "file_path": {
        "type": "string",
        "description": "Absolute or relative path to file"
      },
      "old_string": {
        "type": "string",
        "description": "Exact text to find and replace"
      },
      "new_string": {
        "type": "string",
        "description": "Text to replace old_string with"
      },
      "replace_all": {
        "type": "boolean",
        "description": "Replace all occurrences (default: false, fails if not unique)"
      }
    },
    "required": ["file_path", "old_string", "new_string"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true}
})json";

Json Run(const Args& args, const CallContext&) {
  const std::string& path = args.String("file_path");
  const std::string& old_string = args.String("old_string");
  const std::string& new_string = args.String("new_string");
  const bool replace_all = args.Bool("replace_all", false);
  if (path.empty()) {
    return ToolError{ikigai::toolkit::code::kInvalidArg, "Parameter 'file_path' cannot be empty."}
        .ToJson();
  }
  if (auto invalid = ikigai::file_edit::CheckStrings(old_string, new_string)) {
    return invalid->ToJson();
  }
  auto file = ikigai::file_edit::ReadWholeFile(path);
  if (!file) return file.error().ToJson();

  auto edit = ikigai::file_edit::ApplyEdit({file->content, old_string, new_string, replace_all});
  if (!edit) return edit.error().ToJson();
  if (edit->replacements > 0) {
    // Only over the version that was read: a change made meanwhile is kept.
    auto written = ikigai::toolkit::WriteFileAtomically(path, edit->content, {.seen = file->stamp});
    if (!written) return written.error().ToJson();
  }

  const std::size_t n = edit->replacements;
  Json answer{
      {"output", "Replaced " + std::to_string(n) + (n == 1 ? " occurrence" : " occurrences") +
                     " in " + ikigai::toolkit::BaseName(path)},
      {"replacements", n}};
  if (edit->whitespace_normalized) answer["match"] = "whitespace-normalized";
  if (n == 0) answer["note"] = "old_string was not found; the file was left unchanged.";
  return answer;
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
