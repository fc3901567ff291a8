#include "web_fetch/html_to_markdown.h"

#include <gumbo.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace ikigai::web_fetch {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

const char* Attribute(const GumboNode* node, const char* name) {
  const GumboAttribute* a = gumbo_get_attribute(&node->v.element.attributes, name);
  return a ? a->value : nullptr;
}

bool AttributeIs(const GumboNode* node, const char* name, const char* value) {
  const char* v = Attribute(node, name);
  return v != nullptr && strcasecmp(v, value) == 0;
}

// The parts of the page's URL that relative links are resolved against.
struct BaseUrl {
  std::string scheme;     // "https"
  std::string origin;     // "https://host:port"
  std::string directory;  // origin + path up to its last '/'
  std::string document;   // origin + path, no query

  explicit BaseUrl(std::string_view url) {
    const std::size_t colon = url.find("://");
    if (colon == std::string_view::npos) return;
    scheme = url.substr(0, colon);
    std::size_t path = url.find_first_of("/?#", colon + 3);
    if (path == std::string_view::npos) path = url.size();
    origin = url.substr(0, path);
    std::size_t end = url.find_first_of("?#", path);
    if (end == std::string_view::npos) end = url.size();
    document = std::string(url.substr(0, end));
    if (document.size() == origin.size()) document += '/';
    directory = document.substr(0, document.rfind('/') + 1);
  }

  std::string Resolve(std::string_view href) const {
    href = Trim(href);
    if (origin.empty()) return std::string(href);
    // A scheme: letters (and + - .) up to a ':' before any '/', '?' or '#'.
    const std::size_t stop = href.find_first_of(":/?#");
    if (stop != std::string_view::npos && stop > 0 && href[stop] == ':') return std::string(href);
    if (href.starts_with("//")) return scheme + ":" + std::string(href);
    if (href.starts_with("/")) return origin + std::string(href);
    if (href.starts_with("?")) return document + std::string(href);
    std::string out = directory;
    while (href.starts_with("./")) href.remove_prefix(2);
    while (href.starts_with("../")) {
      href.remove_prefix(3);
      if (out.size() > origin.size() + 1) {
        out.pop_back();
        out.erase(out.rfind('/') + 1);
      }
    }
    return out + std::string(href);
  }
};

// A hostile page must not exhaust the tool: elements nested deeper than
// this are left out (the recursion would overflow the stack), tables keep
// this many columns, and past `budget` bytes of blocks nothing more is
// rendered (a table padded to its widest row, or quotes nested in quotes,
// would otherwise grow far beyond the page).
constexpr int kMaxDepth = 256;
constexpr std::size_t kMaxColumns = 64;

struct Context {
  BaseUrl base;
  std::size_t budget = 0;
  int depth = 0;
  // Inside <main>, <article> or <section>, header, footer and aside belong
  // to that content; outside, they are the page's chrome.
  int content_depth = 0;
};

bool IsBlock(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HTML:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_P:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_TR:
      return true;
    default:
      return false;
  }
}

// Elements whose content is never page text, or is navigation chrome.
bool IsDropped(const GumboNode* node, const Context& context) {
  switch (node->v.element.tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO:
    case GUMBO_TAG_MAP:
      return true;
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_ASIDE:
      return context.content_depth == 0;
    default:
      break;
  }
  if (node->v.element.attributes.length == 0) return false;
  return Attribute(node, "hidden") != nullptr || AttributeIs(node, "aria-hidden", "true") ||
         AttributeIs(node, "role", "navigation");
}

// All text under `node`, as is (for <pre>) or with whitespace collapsed.
void RawText(const GumboNode* node, std::string* out, int depth = 0) {
  if (depth > kMaxDepth) return;
  if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE ||
      node->type == GUMBO_NODE_CDATA) {
    out->append(node->v.text.text);
    return;
  }
  if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) return;
  if (node->v.element.tag == GUMBO_TAG_BR) {
    out->push_back('\n');
    return;
  }
  if (node->v.element.tag == GUMBO_TAG_SCRIPT || node->v.element.tag == GUMBO_TAG_STYLE) return;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    RawText(static_cast<const GumboNode*>(children.data[i]), out, depth + 1);
  }
}

std::string CollapsedText(const GumboNode* node) {
  std::string raw;
  RawText(node, &raw);
  std::string out;
  bool space = false;
  for (char c : Trim(raw)) {
    if (IsSpace(c)) {
      space = true;
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// A fence of backticks longer than any run of them in `text`.
std::string Fence(std::string_view text, std::size_t minimum) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max(minimum, longest + 1), '`');
}

// The language of a code block: class="language-x" or "lang-x" on <pre> or
// on its <code>.
std::string CodeLanguage(const GumboNode* pre) {
  const GumboNode* candidates[2] = {pre, nullptr};
  const GumboVector& children = pre->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    const auto* child = static_cast<const GumboNode*>(children.data[i]);
    if (child->type == GUMBO_NODE_ELEMENT && child->v.element.tag == GUMBO_TAG_CODE) {
      candidates[1] = child;
      break;
    }
  }
  for (const GumboNode* node : candidates) {
    if (node == nullptr) continue;
    const char* cls = Attribute(node, "class");
    if (cls == nullptr) continue;
    std::string_view classes(cls);
    while (!classes.empty()) {
      std::size_t end = classes.find_first_of(" \t\n");
      std::string_view word = classes.substr(0, end);
      for (std::string_view prefix : {"language-", "lang-"}) {
        if (word.starts_with(prefix) && word.size() > prefix.size()) {
          return std::string(word.substr(prefix.size()));
        }
      }
      if (end == std::string_view::npos) break;
      classes.remove_prefix(end + 1);
    }
  }
  return {};
}

// Renders a sequence of block and inline nodes into Markdown blocks. A list
// item or a block quote renders its content with a renderer of its own, then
// indents or prefixes the result.
class Renderer {
 public:
  explicit Renderer(Context* context, bool tight = false) : context_(context), tight_(tight) {}

  void Children(const GumboNode* node) {
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      Node(static_cast<const GumboNode*>(children.data[i]));
    }
  }

  // The blocks joined: blank lines between them, a single newline before a
  // list in a tight container (a list item's text, then its sublist).
  std::string Finish() {
    Flush();
    std::string out;
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      if (i > 0) out += tight_ && blocks_[i].is_list && !blocks_[i - 1].is_list ? "\n" : "\n\n";
      out += blocks_[i].text;
    }
    return out;
  }

 private:
  struct Block {
    std::string text;
    bool is_list;
  };

  void Node(const GumboNode* node) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        Text(node->v.text.text);
        return;
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE:
        if (context_->depth >= kMaxDepth) return;
        ++context_->depth;
        Element(node);
        --context_->depth;
        return;
      default:
        return;  // comments, the document
    }
  }

  void Text(const char* text) {
    for (const char* p = text; *p != '\0'; ++p) {
      const char c = *p;
      if (IsSpace(c)) {
        space_ = true;
        continue;
      }
      if (space_ && !inline_.empty() && inline_.back() != ' ' && inline_.back() != '\n') {
        inline_.push_back(' ');
      }
      space_ = false;
      inline_.push_back(c);
    }
  }

  void Flush() {
    std::string_view text = Trim(inline_);
    if (!text.empty()) {
      // A <br> leaves a newline; trailing spaces on a line are noise.
      blocks_.push_back({std::string(text), false});
    }
    inline_.clear();
    space_ = false;
    ++flushes_;
  }

  void Push(std::string text, bool is_list = false) {
    Flush();
    if (text.size() > context_->budget) {
      context_->budget = 0;
      return;
    }
    context_->budget -= text.size();
    if (!text.empty()) blocks_.push_back({std::move(text), is_list});
  }

  // A pending space before an inline element goes before its marker.
  void SpaceBeforeInline() {
    if (space_ && !inline_.empty() && inline_.back() != ' ' && inline_.back() != '\n') {
      inline_.push_back(' ');
    }
    space_ = false;
  }

  // Renders `node`'s children inline and wraps them: **x**, [x](url)...
  void Wrapped(const GumboNode* node, std::string_view open, std::string_view close) {
    SpaceBeforeInline();
    const std::size_t start = inline_.size();
    const int flushes = flushes_;
    Children(node);
    if (flushes != flushes_) return;  // a block inside: no wrapping across it
    std::string_view content = Trim(std::string_view(inline_).substr(start));
    if (content.empty()) {
      inline_.resize(start);
      return;
    }
    std::string wrapped;
    wrapped.reserve(open.size() + content.size() + close.size());
    wrapped.append(open).append(content).append(close);
    inline_.resize(start);
    inline_ += wrapped;
  }

  void Element(const GumboNode* node) {
    if (IsDropped(node, *context_)) return;
    const GumboTag tag = node->v.element.tag;
    switch (tag) {
      case GUMBO_TAG_H1:
      case GUMBO_TAG_H2:
      case GUMBO_TAG_H3:
      case GUMBO_TAG_H4:
      case GUMBO_TAG_H5:
      case GUMBO_TAG_H6:
        return Heading(node, 1 + static_cast<int>(tag - GUMBO_TAG_H1));
      case GUMBO_TAG_PRE:
        return CodeBlock(node);
      case GUMBO_TAG_UL:
      case GUMBO_TAG_OL:
        return List(node, tag == GUMBO_TAG_OL);
      case GUMBO_TAG_BLOCKQUOTE:
        return Quote(node);
      case GUMBO_TAG_TABLE:
        return Table(node);
      case GUMBO_TAG_HR:
        return Push("---");
      case GUMBO_TAG_BR:
        inline_.push_back('\n');
        space_ = false;
        return;
      case GUMBO_TAG_STRONG:
      case GUMBO_TAG_B:
        return Wrapped(node, "**", "**");
      case GUMBO_TAG_EM:
      case GUMBO_TAG_I:
      case GUMBO_TAG_CITE:
        return Wrapped(node, "*", "*");
      case GUMBO_TAG_S:
      case GUMBO_TAG_STRIKE:
      case GUMBO_TAG_DEL:
        return Wrapped(node, "~~", "~~");
      case GUMBO_TAG_CODE:
      case GUMBO_TAG_KBD:
      case GUMBO_TAG_SAMP:
      case GUMBO_TAG_TT:
        return InlineCode(node);
      case GUMBO_TAG_A:
        return Link(node);
      case GUMBO_TAG_IMG:
        return Image(node);
      case GUMBO_TAG_DT:
        Flush();
        Wrapped(node, "**", "**");
        Flush();
        return;
      case GUMBO_TAG_MAIN:
      case GUMBO_TAG_ARTICLE:
      case GUMBO_TAG_SECTION:
        ++context_->content_depth;
        Flush();
        Children(node);
        Flush();
        --context_->content_depth;
        return;
      default:
        break;
    }
    if (IsBlock(tag)) {
      Flush();
      Children(node);
      Flush();
    } else {
      Children(node);  // span, small, abbr, unknown inline elements
    }
  }

  void Heading(const GumboNode* node, int level) {
    Flush();
    Children(node);
    std::string text(Trim(inline_));
    inline_.clear();
    std::replace(text.begin(), text.end(), '\n', ' ');
    if (!text.empty()) Push(std::string(static_cast<std::size_t>(level), '#') + " " + text);
  }

  void CodeBlock(const GumboNode* node) {
    Flush();
    std::string code;
    RawText(node, &code);
    if (code.starts_with("\n")) code.erase(0, 1);  // as HTML itself drops it
    while (!code.empty() && (code.back() == '\n' || code.back() == ' ')) code.pop_back();
    const std::string fence = Fence(code, 3);
    Push(fence + CodeLanguage(node) + "\n" + code + "\n" + fence);
  }

  void InlineCode(const GumboNode* node) {
    SpaceBeforeInline();
    const std::string code = CollapsedText(node);
    if (code.empty()) return;
    const std::string fence = Fence(code, 1);
    const bool pad = code.front() == '`' || code.back() == '`';
    inline_ += fence;
    if (pad) inline_ += ' ';
    inline_ += code;
    if (pad) inline_ += ' ';
    inline_ += fence;
  }

  void Link(const GumboNode* node) {
    const char* href = Attribute(node, "href");
    std::string_view target = href ? Trim(href) : std::string_view();
    if (target.empty() || target.starts_with("#") || target.starts_with("javascript:")) {
      return Children(node);  // in-page anchors and script links: just the text
    }
    Wrapped(node, "[", "](" + context_->base.Resolve(target) + ")");
  }

  void Image(const GumboNode* node) {
    const char* alt = Attribute(node, "alt");
    const char* src = Attribute(node, "src");
    if (alt == nullptr || src == nullptr || Trim(alt).empty()) return;  // decoration
    SpaceBeforeInline();
    inline_ += "![" + std::string(Trim(alt)) + "](" + context_->base.Resolve(src) + ")";
  }

  // `text` with `first` before its first line and `rest` before the others;
  // blank lines get the prefix without its trailing spaces. One pass: a
  // quote or list item may hold a whole page.
  static std::string Indent(std::string_view text, std::string_view first, std::string_view rest) {
    std::string_view rest_on_blank = rest;
    while (!rest_on_blank.empty() && rest_on_blank.back() == ' ') rest_on_blank.remove_suffix(1);
    std::string out;
    out.reserve(text.size() + first.size() * 8);
    out += first;
    for (std::size_t i = 0; i < text.size(); ++i) {
      out.push_back(text[i]);
      if (text[i] == '\n' && i + 1 < text.size()) out += text[i + 1] == '\n' ? rest_on_blank : rest;
    }
    return out;
  }

  void List(const GumboNode* node, bool ordered) {
    Flush();
    long number = 1;
    if (ordered) {
      if (const char* start = Attribute(node, "start")) number = std::strtol(start, nullptr, 10);
    }
    std::vector<std::string> items;
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children.data[i]);
      if (child->type != GUMBO_NODE_ELEMENT || IsDropped(child, *context_)) continue;
      const GumboTag tag = child->v.element.tag;
      Renderer item(context_, true);
      if (tag == GUMBO_TAG_LI) {
        item.Children(child);
      } else {
        item.Node(child);  // a list directly in a list (invalid, common): part of the last item
      }
      std::string text = item.Finish();
      if (text.empty()) continue;
      if (tag != GUMBO_TAG_LI && !items.empty()) {
        items.back() += "\n" + Indent(text, "  ", "  ");
        continue;
      }
      const std::string marker = ordered ? std::to_string(number++) + ". " : "- ";
      items.push_back(Indent(text, marker, std::string(marker.size(), ' ')));
    }
    std::string out;
    for (const std::string& item : items) {
      if (!out.empty()) out += '\n';
      out += item;
    }
    Push(std::move(out), true);
  }

  void Quote(const GumboNode* node) {
    Flush();
    Renderer inner(context_);
    inner.Children(node);
    const std::string text = inner.Finish();
    if (!text.empty()) Push(Indent(text, "> ", "> "));
  }

  // One table cell's content on one line, pipes escaped.
  std::string Cell(const GumboNode* cell) {
    Renderer inner(context_);
    inner.Children(cell);
    const std::string text = inner.Finish();
    std::string out;
    out.reserve(text.size());
    bool space = false;
    for (char c : text) {
      if (c == '\n') {
        space = true;
        continue;
      }
      if (space && !out.empty()) out.push_back(' ');
      space = false;
      if (c == '|') out.push_back('\\');
      out.push_back(c);
    }
    return out;
  }

  void Rows(const GumboNode* node, std::vector<std::vector<std::string>>* rows) {
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children.data[i]);
      if (child->type != GUMBO_NODE_ELEMENT) continue;
      const GumboTag tag = child->v.element.tag;
      if (tag == GUMBO_TAG_THEAD || tag == GUMBO_TAG_TBODY || tag == GUMBO_TAG_TFOOT) {
        Rows(child, rows);
      } else if (tag == GUMBO_TAG_TR) {
        std::vector<std::string> row;
        const GumboVector& cells = child->v.element.children;
        for (unsigned j = 0; j < cells.length; ++j) {
          const auto* cell = static_cast<const GumboNode*>(cells.data[j]);
          if (cell->type != GUMBO_NODE_ELEMENT) continue;
          if (cell->v.element.tag != GUMBO_TAG_TD && cell->v.element.tag != GUMBO_TAG_TH) continue;
          if (row.size() >= kMaxColumns) break;
          row.push_back(Cell(cell));
          if (const char* span = Attribute(cell, "colspan")) {
            const long n = std::clamp(std::strtol(span, nullptr, 10), 1L, 50L);
            for (long k = 1; k < n && row.size() < kMaxColumns; ++k) row.emplace_back();
          }
        }
        if (!row.empty()) rows->push_back(std::move(row));
      }
    }
  }

  void Table(const GumboNode* node) {
    Flush();
    std::vector<std::vector<std::string>> rows;
    Rows(node, &rows);
    // A caption is a paragraph before the table.
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children.data[i]);
      if (child->type == GUMBO_NODE_ELEMENT && child->v.element.tag == GUMBO_TAG_CAPTION) {
        Push(CollapsedText(child));
      }
    }
    if (rows.empty()) return;
    std::size_t columns = 0;
    for (const auto& row : rows) columns = std::max(columns, row.size());
    std::string out;
    auto line = [&](const std::vector<std::string>& row) {
      out += '|';
      for (std::size_t c = 0; c < columns; ++c) {
        out += ' ';
        if (c < row.size()) out += row[c];
        out += " |";
      }
      out += '\n';
    };
    line(rows[0]);
    out += '|';
    for (std::size_t c = 0; c < columns; ++c) out += " --- |";
    out += '\n';
    for (std::size_t r = 1; r < rows.size(); ++r) line(rows[r]);
    out.pop_back();
    Push(std::move(out));
  }

  Context* context_;
  bool tight_;
  std::vector<Block> blocks_;
  std::string inline_;  // the paragraph being built
  bool space_ = false;  // whitespace seen since the last character
  int flushes_ = 0;
};

const GumboNode* FindFirst(const GumboNode* node, GumboTag tag, int* count, bool all = false,
                           int depth = 0) {
  if (node->type != GUMBO_NODE_ELEMENT || depth > kMaxDepth) return nullptr;
  const GumboNode* found = nullptr;
  if (node->v.element.tag == tag) {
    ++*count;
    if (!all) return node;
    found = node;
  }
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    const GumboNode* f =
        FindFirst(static_cast<const GumboNode*>(children.data[i]), tag, count, all, depth + 1);
    if (f != nullptr && found == nullptr) found = f;
    if (found != nullptr && !all) return found;
  }
  return found;
}

}  // namespace

Markdown HtmlToMarkdown(std::string_view html, std::string_view base_url) {
  GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, html.data(), html.size());
  Markdown result;
  int count = 0;
  if (const GumboNode* title = FindFirst(output->root, GUMBO_TAG_TITLE, &count)) {
    result.title = CollapsedText(title);
  }

  // The main content when the page marks it: <main>, else its one <article>.
  count = 0;
  const GumboNode* root = FindFirst(output->root, GUMBO_TAG_MAIN, &count);
  if (root == nullptr) {
    count = 0;
    const GumboNode* article = FindFirst(output->root, GUMBO_TAG_ARTICLE, &count, true);
    if (count == 1) root = article;
  }
  // Room for the page's text many times over, never for a blow-up.
  Context context{BaseUrl(base_url), 8 * html.size() + (1 << 20)};
  Renderer renderer(&context);
  if (root != nullptr) {
    ++context.content_depth;
    renderer.Children(root);
  } else {
    renderer.Children(output->root);
  }
  result.text = renderer.Finish();
  if (!result.text.empty()) result.text.push_back('\n');
  if (result.title.empty()) {
    count = 0;
    if (const GumboNode* h1 = FindFirst(output->root, GUMBO_TAG_H1, &count)) {
      result.title = CollapsedText(h1);
    }
  }
  gumbo_destroy_output(&kGumboDefaultOptions, output);
  return result;
}

}  // namespace ikigai::web_fetch
