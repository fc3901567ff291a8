// Converts an HTML file to Markdown with web_fetch's converter and prints
// the Markdown (or, with --quiet, only its size): bench/web-fetch.sh times it
// against pandoc.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "web_fetch/html_to_markdown.h"

int main(int argc, char** argv) {
  const bool quiet = argc > 2 && std::strcmp(argv[2], "--quiet") == 0;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.html [--quiet]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto page = ikigai::web_fetch::HtmlToMarkdown(html, "https://example.com/page.html");
  if (quiet) {
    std::printf("%zu bytes of Markdown\n", page.text.size());
  } else {
    std::fwrite(page.text.data(), 1, page.text.size(), stdout);
  }
  return 0;
}
