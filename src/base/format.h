// How durations, sizes and trimmed text are put into messages, the same
// everywhere: "300 ms", "1.5 s", "30 s", "10 min"; "64 KB", "1 MB",
// "1000 bytes".
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace ikigai {

// Under a second in milliseconds; under two minutes in seconds (one
// decimal when not whole); beyond, in minutes (and seconds when not whole).
std::string FormatDuration(std::chrono::milliseconds duration);

// A count with thousands separated: "152,300".
std::string FormatCount(long long count);

// Whole megabytes or kilobytes when the size is one, else bytes.
std::string FormatSize(std::size_t bytes);

// Without leading and trailing spaces, tabs, carriage returns and newlines.
std::string_view Trim(std::string_view text);

// Nothing but spaces, tabs, carriage returns and newlines (or nothing).
bool IsBlank(std::string_view text);

// `text` with ASCII letters in lower case (header names, hosts, media
// types, words to look for in a server's message).
std::string AsciiLower(std::string_view text);

}  // namespace ikigai
