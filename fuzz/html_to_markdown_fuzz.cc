// web_fetch's page handling (tools/web_fetch/): the charset a page declares,
// its conversion to UTF-8, and the HTML-to-Markdown walk, on any bytes. The
// Markdown and the title must be valid UTF-8 whatever came in.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/utf8.h"
#include "fuzz_support.h"
#include "web_fetch/charset.h"
#include "web_fetch/html_to_markdown.h"

namespace web = ikigai::web_fetch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = ikigai::fuzz::AsText(data, size);
  const std::string charset = web::CharsetFromHtmlMeta(bytes);
  FUZZ_CHECK(charset.size() <= size);
  const std::string html = web::ToUtf8(bytes, charset);
  FUZZ_CHECK(ikigai::utf8::IsValid(html));
  const web::Markdown page = web::HtmlToMarkdown(html, "https://example.com/dir/page.html");
  FUZZ_CHECK(ikigai::utf8::IsValid(page.text));
  FUZZ_CHECK(ikigai::utf8::IsValid(page.title));
  return 0;
}
