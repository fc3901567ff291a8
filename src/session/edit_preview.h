// What a file edit would change, as a unified diff, for the approval
// question (the REPL shows it before the user says yes or no).
//
// The proposed text is computed the way the tools would (file_write: the
// new content; file_edit: old_string replaced once, or everywhere with
// replace_all), then `diff -u` from diffutils compares it with the file.
// When the edit cannot be previewed exactly (old_string not found as
// written: the tool may still match it with whitespace normalized), the
// preview shows old_string and new_string as a diff of their own.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ikigai::session {

// Empty for calls that are not file_write or file_edit with a file_path.
// The whole diff: what is approved is what can be seen (a front end shows
// the start of a long one, and the rest when asked).
std::string EditPreview(const std::string& tool, const nlohmann::json& arguments);

// The first `max_lines` lines of `text`; if there are more, a last line
// "... (N more lines)".
std::string FirstLines(const std::string& text, std::size_t max_lines);

}  // namespace ikigai::session
