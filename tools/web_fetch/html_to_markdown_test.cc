#include "web_fetch/html_to_markdown.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ikigai::web_fetch {
namespace {

std::string Md(std::string_view html,
               std::string_view base = "https://example.com/docs/page.html") {
  return HtmlToMarkdown(html, base).text;
}

// A page of the shape real sites have: scripts, styles, a header with
// navigation, a sidebar, a footer, a cookie form, and the article itself.
constexpr std::string_view kRealisticPage = R"html(<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Parsing  JSON
     in C++ | DevBlog</title>
  <link rel="stylesheet" href="/site.css">
  <style>.hero { color: red }</style>
  <script>window.dataLayer = []; function track(){}</script>
  <script type="application/ld+json">{"@type": "Article"}</script>
</head>
<body class="post">
  <header class="site-header">
    <a href="/" class="logo"><svg viewBox="0 0 10 10"><path d="M0 0"/></svg>DevBlog</a>
    <nav><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li></ul></nav>
  </header>
  <div role="navigation" class="breadcrumbs"><a href="/">Home</a> › Posts</div>
  <div class="layout">
    <article>
      <header><h1>Parsing JSON in C++</h1><p class="meta">By Ada, 3 min read</p></header>
      <p>JSON is <em>everywhere</em>. Here is how to parse it with
         <a href="../libs/json.html">nlohmann::json</a> and <code>json::parse</code>.</p>
      <h2 id="install">Install</h2>
      <p>On Debian:</p>
      <pre><code class="language-bash">sudo apt install nlohmann-json3-dev
</code></pre>
      <h2>Steps</h2>
      <ol>
        <li>Include the header.</li>
        <li>Parse:
          <ul>
            <li>from a <strong>string</strong></li>
            <li>from a stream</li>
          </ul>
        </li>
        <li>Use the value.</li>
      </ol>
      <pre class="highlight"><code class="lang-cpp">auto j = json::parse(R"({"a": 1})");
if (j["a"] == 1) { return 0; }</code></pre>
      <table>
        <caption>Parsers compared</caption>
        <thead><tr><th>Library</th><th>Speed</th></tr></thead>
        <tbody>
          <tr><td>nlohmann</td><td>good</td></tr>
          <tr><td>simdjson</td><td><b>fast</b></td></tr>
        </tbody>
      </table>
      <blockquote><p>Measure before you optimize.</p></blockquote>
      <p>An image: <img src="/img/chart.png" alt="benchmark chart"> and a decoration
         <img src="/img/dot.png" alt="">.</p>
      <iframe src="https://ads.example.net/frame"></iframe>
      <noscript>Enable JavaScript for comments.</noscript>
    </article>
    <aside class="sidebar"><h3>Related</h3><ul><li><a href="/x">Other post</a></li></ul></aside>
  </div>
  <form class="cookie-banner"><p>We use cookies.</p><button>Accept</button></form>
  <footer><p>&copy; 2026 DevBlog</p></footer>
  <script src="/app.js"></script>
</body>
</html>)html";

TEST(HtmlToMarkdown, RealisticPageKeepsTheArticleOnly) {
  const Markdown page = HtmlToMarkdown(kRealisticPage, "https://blog.example.com/posts/json.html");
  EXPECT_EQ(page.title, "Parsing JSON in C++ | DevBlog");
  EXPECT_EQ(page.text, R"md(# Parsing JSON in C++

By Ada, 3 min read

JSON is *everywhere*. Here is how to parse it with [nlohmann::json](https://blog.example.com/libs/json.html) and `json::parse`.

## Install

On Debian:

```bash
sudo apt install nlohmann-json3-dev
```

## Steps

1. Include the header.
2. Parse:
   - from a **string**
   - from a stream
3. Use the value.

```cpp
auto j = json::parse(R"({"a": 1})");
if (j["a"] == 1) { return 0; }
```

Parsers compared

| Library | Speed |
| --- | --- |
| nlohmann | good |
| simdjson | **fast** |

> Measure before you optimize.

An image: ![benchmark chart](https://blog.example.com/img/chart.png) and a decoration .
)md");
}

TEST(HtmlToMarkdown, WithoutMainContentDropsPageLevelChrome) {
  const std::string md = Md(R"html(<body>
    <header><a href="/">Logo</a><nav><a href="/a">A</a></nav></header>
    <div class="content"><h2>Title</h2><p>Body text.</p>
      <section><header><h3>Section head</h3></header><p>More.</p></section></div>
    <aside>Sidebar</aside><footer>Footer</footer>
    <div hidden>Hidden</div><div aria-hidden="true">Icon</div>
    <script>alert(1)</script><style>p{}</style></body>)html");
  EXPECT_EQ(md, "## Title\n\nBody text.\n\n### Section head\n\nMore.\n");
}

TEST(HtmlToMarkdown, MainWinsOverSeveralArticles) {
  EXPECT_EQ(Md("<article>teaser 1</article><main><p>The content</p></main><article>t2</article>"),
            "The content\n");
  // Several articles and no main: a listing page, rendered whole.
  EXPECT_EQ(Md("<div>intro</div><article>one</article><article>two</article>"),
            "intro\n\none\n\ntwo\n");
}

TEST(HtmlToMarkdown, LinksAreResolvedAgainstThePage) {
  EXPECT_EQ(Md(R"h(<p><a href="/root">a</a> <a href="rel/x">b</a> <a href="../up">c</a>
                  <a href="//cdn.example.net/y">d</a> <a href="https://other.org/">e</a>
                  <a href="?q=1">f</a> <a href="#top">g</a> <a href="javascript:void(0)">h</a>
                  <a href="mailto:a@b.c">i</a></p>)h"),
            "[a](https://example.com/root) [b](https://example.com/docs/rel/x) "
            "[c](https://example.com/up) [d](https://cdn.example.net/y) [e](https://other.org/) "
            "[f](https://example.com/docs/page.html?q=1) g h [i](mailto:a@b.c)\n");
}

TEST(HtmlToMarkdown, WhitespaceCollapsesAndBreaksStay) {
  EXPECT_EQ(
      Md("<p>  one\n   two <b> bold </b>three<br>four&nbsp;five </p><p>&lt;tag&gt; &amp;</p>"),
      "one two **bold** three\nfour\u00a0five\n\n<tag> &\n");
}

TEST(HtmlToMarkdown, CodeWithBackticksGetsLongerFences) {
  EXPECT_EQ(Md("<p>run <code>a `b` c</code></p>"), "run ``a `b` c``\n");
  EXPECT_EQ(Md("<pre>```\nx\n```</pre>"), "````\n```\nx\n```\n````\n");
}

TEST(HtmlToMarkdown, TablesWithoutHeadAndWithSpansAndPipes) {
  EXPECT_EQ(Md("<table><tr><td>a|b</td><td>c<br>d</td></tr><tr><td colspan=2>wide</td></tr>"
               "<tr><td>1</td></tr></table>"),
            "| a\\|b | c d |\n| --- | --- |\n| wide |  |\n| 1 |  |\n");
}

TEST(HtmlToMarkdown, ListsNestInvalidlyAndLooselyToo) {
  // A list directly inside a list (invalid, common) belongs to the item before it.
  EXPECT_EQ(Md("<ul><li>a</li><ul><li>b</li></ul><li>c</li></ul>"), "- a\n  - b\n- c\n");
  EXPECT_EQ(Md("<ol><li><p>first para</p><p>second para</p></li><li>two</li></ol>"),
            "1. first para\n\n   second para\n2. two\n");
}

TEST(HtmlToMarkdown, QuotesNestAndDefinitionListsRead) {
  EXPECT_EQ(Md("<blockquote>outer<blockquote>inner</blockquote></blockquote>"),
            "> outer\n>\n> > inner\n");
  EXPECT_EQ(Md("<dl><dt>Term</dt><dd>Meaning</dd></dl>"), "**Term**\n\nMeaning\n");
}

TEST(HtmlToMarkdown, TitleFallsBackToTheFirstHeadingAndEmptyPagesAreEmpty) {
  EXPECT_EQ(HtmlToMarkdown("<h1>Head</h1><p>x</p>", "https://e.com/").title, "Head");
  const Markdown empty = HtmlToMarkdown("", "https://e.com/");
  EXPECT_EQ(empty.title, "");
  EXPECT_EQ(empty.text, "");
}

// Gumbo repairs the tree as browsers do (<b>..<i>..</b>..</i> becomes
// <b>..<i>..</i></b><i>..</i>); a stray <li> is a block of text.
TEST(HtmlToMarkdown, TagSoupStillConverts) {
  EXPECT_EQ(Md("<p>one<p>two<b>bold<i>both</b>italic</i><li>stray"),
            "one\n\ntwo**bold*both****italic*\n\nstray\n");
}

}  // namespace
}  // namespace ikigai::web_fetch

namespace ikigai::web_fetch {
namespace {

// A hostile page cannot make the converter overflow its stack or grow far
// beyond the page.
TEST(HtmlToMarkdownLimits, DeepNestingIsCutNotACrash) {
  std::string html = "<p>before</p>";
  for (int i = 0; i < 3000; ++i) html += "<div>";
  html += "deep";
  const Markdown md = HtmlToMarkdown(html, "http://example.com/");
  EXPECT_NE(md.text.find("before"), std::string::npos) << md.text.substr(0, 200);
  EXPECT_EQ(md.text.find("deep"), std::string::npos);  // below the depth kept
}

TEST(HtmlToMarkdownLimits, AWideRowDoesNotPadEveryRowOfATable) {
  std::string html = "<table><tr>";
  for (int i = 0; i < 5000; ++i) html += "<td>x</td>";
  html += "</tr>";
  for (int i = 0; i < 5000; ++i) html += "<tr><td colspan=50>y</td></tr>";
  html += "</table>";
  const Markdown md = HtmlToMarkdown(html, "http://example.com/");
  const std::string first_line = md.text.substr(0, md.text.find('\n'));
  EXPECT_EQ(std::count(first_line.begin(), first_line.end(), '|'), 65) << first_line.substr(0, 80);
  EXPECT_LT(md.text.size(), 8 * html.size() + (1 << 20));
}

TEST(HtmlToMarkdownLimits, NestedQuotesStopAtTheBudget) {
  std::string html;
  for (int i = 0; i < 200; ++i) html += "<blockquote>";
  for (int i = 0; i < 20000; ++i) html += "<p>line</p>";
  const Markdown md = HtmlToMarkdown(html, "http://example.com/");
  EXPECT_LE(md.text.size(), 8 * html.size() + (1 << 20) + 1);
}

}  // namespace
}  // namespace ikigai::web_fetch
