// Keeping a file's line endings when text is inserted into it.
//
// Models write "\n" whatever the file uses. A CRLF file (most of its line
// breaks are "\r\n") gets "\r\n" for every lone "\n" of the inserted text; a
// pure LF file gets "\n" for every "\r\n"; a mixed file with a majority of
// LF, or a file without line breaks, takes the text as it is.
#pragma once

#include <string>
#include <string_view>

namespace ikigai::file_edit {

enum class LineEnding { kNone, kLf, kCrlf, kMixedLf };

LineEnding DetectLineEnding(std::string_view text);

// `inserted` converted for a file whose line ending is `ending`.
std::string MatchLineEndings(std::string_view inserted, LineEnding ending);

}  // namespace ikigai::file_edit
