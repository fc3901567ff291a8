// Text from the web in whatever encoding it came, as UTF-8.
//
// The encoding is named by the Content-Type header's charset, else (for
// HTML) by a <meta charset> or <meta http-equiv="Content-Type"> near the
// start of the document, else by a byte order mark; without any of them
// the text is taken as UTF-8. Conversion goes through glibc's iconv; bytes
// that are invalid in the encoding become U+FFFD, so the result is always
// valid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace ikigai::web_fetch {

// The charset parameter of a Content-Type value, lowercased; empty if none.
std::string CharsetFromContentType(std::string_view content_type);

// The charset an HTML document declares in its first few KB, lowercased;
// empty if none.
std::string CharsetFromHtmlMeta(std::string_view html);

// `bytes` decoded from `charset` (empty or unknown: UTF-8) into valid UTF-8.
// A byte order mark decides over `charset`, as in browsers, and is dropped.
std::string ToUtf8(std::string_view bytes, std::string_view charset);

}  // namespace ikigai::web_fetch
