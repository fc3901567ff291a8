// The edit itself, on bytes in memory: find old_string in a file's content
// and replace it with new_string (seeds/000 "Tool: file-edit", DECISIONS §4).
//
// An exact, byte-for-byte match is tried first. Failing that (and without
// replace_all), a single match that differs only in whitespace at the ends
// of lines is accepted, with new_string re-indented to the file's style.
// Either way inserted text takes the file's line endings. Failures carry
// what the model needs to retry: the lines of ambiguous matches, or the
// nearest lines when nothing matched.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "toolkit/tool_error.h"

namespace ikigai::file_edit {

// At most this many match lines are returned in NOT_UNIQUE's "lines".
inline constexpr std::size_t kMaxListedLines = 100;

// The checks made before the file is read: old_string empty, or equal to
// new_string (a no-op).
std::optional<toolkit::ToolError> CheckStrings(std::string_view old_string,
                                               std::string_view new_string);

struct EditRequest {
  std::string_view content;  // the whole file
  std::string_view old_string;
  std::string_view new_string;
  bool replace_all = false;
};

struct EditOutcome {
  std::string content;  // the file after the edit
  std::size_t replacements = 0;
  bool whitespace_normalized = false;  // matched with whitespace disregarded
};

Result<EditOutcome, toolkit::ToolError> ApplyEdit(const EditRequest& request);

}  // namespace ikigai::file_edit
