// HTML to Markdown (GitHub-flavoured), for a model to read a web page.
//
// The page is parsed by gumbo (Google's HTML5 parser: real documents, tag
// soup included, parse the way browsers parse them), then the tree is
// walked once. Kept: headings, paragraphs, links (made absolute), emphasis,
// inline code, code blocks with their language, nested and ordered lists,
// tables as pipe tables, block quotes, images with alt text. Dropped:
// scripts, styles, svg, iframes, forms, hidden elements and navigation
// chrome (nav, role=navigation, and header, footer and aside outside the
// page's main content). When the page has a <main>, or a single <article>,
// only that is rendered. The output is meant to be read, not to turn back
// into the same HTML: text is not escaped except where it would break a
// table.
#pragma once

#include <string>
#include <string_view>

namespace ikigai::web_fetch {

struct Markdown {
  std::string title;  // the <title>, else the first <h1>; may be empty
  std::string text;
};

// `html` must be UTF-8; `base_url` is the page's own URL, against which
// relative links are resolved.
Markdown HtmlToMarkdown(std::string_view html, std::string_view base_url);

}  // namespace ikigai::web_fetch
