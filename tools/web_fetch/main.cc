// web_fetch-tool: a web page as Markdown, a JSON or text document as is
// (issue 15). The fetch itself (URL checks, redirects, address vetting) is
// fetcher.cc; the conversion html_to_markdown.cc; here the content type
// decides what to do with the body, and long results are cut into pieces.
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/format.h"
#include "base/utf8.h"
#include "toolkit/budget.h"
#include "toolkit/error_codes.h"
#include "toolkit/tool_main.h"
#include "web_fetch/charset.h"
#include "web_fetch/fetcher.h"
#include "web_fetch/html_to_markdown.h"

namespace {

using ikigai::toolkit::Args;
using ikigai::toolkit::CallContext;
using ikigai::toolkit::Clock;
using ikigai::toolkit::Json;
using ikigai::toolkit::ToolError;
namespace code = ikigai::toolkit::code;
namespace web = ikigai::web_fetch;

constexpr std::string_view kSchema = R"json({
  "name": "web_fetch",
  "description": "Fetch a web page (http or https) and return it as Markdown: headings, paragraphs, links, lists, tables and code blocks, without scripts, styles and navigation. JSON and plain text come back as they are; other content (images, archives) is only described. Redirects are followed. A long page comes back in pieces: truncated: true and next_offset, to pass as offset for the next piece. Local and private network addresses are refused unless the user allowed them. Returns: {url, final_url, status, content_type, title, content, truncated, next_offset?, total_length}.",
  "parameters": {
    "type": "object",
    "properties": {
      "url": {
        "type": "string",
        "description": "The http:// or https:// URL to fetch"
      },
      "offset": {
        "type": "integer",
        "description": "Where to start in the converted content (a next_offset from an earlier call); default 0"
      }
    },
    "required": ["url"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": true}
})json";

constexpr auto kDefaultTimeLimit = std::chrono::milliseconds(30000);
constexpr std::size_t kMaxUrlBytes = 8192;
constexpr std::size_t kMaxTitleBytes = 1024;
constexpr std::size_t kExcerptBytes = 600;

bool AllowPrivateNetworks() {
  const char* value = std::getenv("IKIGAI_WEB_FETCH_ALLOW_PRIVATE_NETWORKS");
  return value != nullptr && (std::strcmp(value, "1") == 0 || std::strcmp(value, "true") == 0);
}

// When to give up on the network: a little before the host's deadline, so
// that converting and answering still fit.
Clock::time_point StopTime(const CallContext& context) {
  const Clock::time_point deadline = context.deadline.value_or(context.start + kDefaultTimeLimit);
  const auto total = deadline - context.start;
  const auto margin = std::min<Clock::duration>(std::chrono::seconds(2), total / 5);
  return deadline - margin;
}

enum class Kind { kHtml, kJson, kText, kOther };

std::string MediaType(std::string_view content_type) {
  const std::size_t semicolon = content_type.find(';');
  std::string type = ikigai::AsciiLower(content_type.substr(0, semicolon));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return type;
}

Kind KindOf(const std::string& media_type, std::string_view body) {
  if (media_type == "text/html" || media_type == "application/xhtml+xml") return Kind::kHtml;
  if (media_type == "application/json" || media_type.ends_with("+json")) return Kind::kJson;
  if (media_type.starts_with("text/") || media_type == "application/xml" ||
      media_type.ends_with("+xml") || media_type == "application/javascript" ||
      media_type == "application/x-yaml" || media_type == "application/yaml" ||
      media_type == "application/toml" || media_type == "application/x-sh") {
    return Kind::kText;
  }
  if (!media_type.empty()) return Kind::kOther;
  // No Content-Type: look at the bytes.
  const std::string head = ikigai::AsciiLower(body.substr(0, 512));
  if (head.find("<!doctype html") != std::string::npos || head.find("<html") != std::string::npos) {
    return Kind::kHtml;
  }
  const std::string_view probe = body.substr(0, 8192);
  if (probe.find('\0') == std::string_view::npos && ikigai::utf8::IsValid(probe))
    return Kind::kText;
  return Kind::kOther;
}

std::string SizeText(std::size_t bytes) {
  if (bytes < 10 * 1024) return std::to_string(bytes) + " bytes";
  if (bytes < 10 * 1024 * 1024) return std::to_string(bytes / 1024) + " KB";
  return std::to_string(bytes / (1024 * 1024)) + " MB";
}

Json Run(const Args& args, const CallContext& context) {
  const std::string& url = args.String("url");
  const std::int64_t offset = args.OptionalInt("offset").value_or(0);
  if (offset < 0) {
    return ToolError{code::kInvalidArg, "Parameter 'offset' must be 0 or more, got " +
                                            std::to_string(offset) +
                                            "; pass the next_offset of an earlier call."}
        .ToJson();
  }
  if (url.size() > kMaxUrlBytes) {
    return ToolError{code::kInvalidArg,
                     "Parameter 'url' is longer than 8 KB; no web server "
                     "takes such a URL."}
        .ToJson();
  }
  web::FetchOptions options;
  options.deadline = StopTime(context);
  if (!AllowPrivateNetworks()) options.vet_address = web::PublicOnly();
  auto fetched = web::Fetch(url, options);
  if (!fetched) return fetched.error().ToJson();
  const auto& response = fetched->response;

  const std::string media_type = MediaType(response.content_type);
  const Kind kind = KindOf(media_type, response.body);
  std::string title;
  std::string content;
  switch (kind) {
    case Kind::kHtml: {
      std::string charset = web::CharsetFromContentType(response.content_type);
      if (charset.empty()) charset = web::CharsetFromHtmlMeta(response.body);
      web::Markdown page =
          web::HtmlToMarkdown(web::ToUtf8(response.body, charset), fetched->final_url);
      title = std::move(page.title);
      content = std::move(page.text);
      break;
    }
    case Kind::kJson:
    case Kind::kText:
      content = web::ToUtf8(response.body, web::CharsetFromContentType(response.content_type));
      break;
    case Kind::kOther:
      content = "(" + (media_type.empty() ? std::string("binary content") : media_type) + ", " +
                SizeText(response.body.size()) + (response.body_cut ? " or more" : "") +
                ": not text, so not shown. Download it with bash (curl -o FILE URL) if you "
                "need the file itself.)";
      break;
  }
  if (title.size() > kMaxTitleBytes) {
    title.resize(ikigai::utf8::SafePrefixLength(title, kMaxTitleBytes));
  }

  if (response.status >= 400) {
    std::string why = response.status == 401 || response.status == 403
                          ? "the server refused access (the page may need a login)"
                      : response.status == 404 ? "no such page; check the URL"
                      : response.status == 429 ? "too many requests; wait before trying again"
                      : response.status >= 500 ? "a server error; try again later"
                                               : "the server refused the request";
    return ToolError{code::kHttpError,
                     "HTTP " + std::to_string(response.status) + " from " + fetched->final_url +
                         ": " + why + ".",
                     {{"status", response.status},
                      {"url", url},
                      {"final_url", fetched->final_url},
                      {"excerpt", ikigai::toolkit::KeepHead(content, kExcerptBytes)}}}
        .ToJson();
  }

  const std::size_t total = content.size();
  if (static_cast<std::uint64_t>(offset) > total) {
    return ToolError{code::kInvalidArg,
                     "Parameter 'offset' (" + std::to_string(offset) +
                         ") is past the end of the content (total_length " + std::to_string(total) +
                         "); the page may have changed since.",
                     {{"total_length", total}}}
        .ToJson();
  }
  const std::size_t start =
      ikigai::utf8::SafeSuffixStart(content, static_cast<std::size_t>(offset));
  const std::string_view rest = std::string_view(content).substr(start);
  const std::size_t fields = ikigai::toolkit::JsonEscapedSize(url) +
                             ikigai::toolkit::JsonEscapedSize(fetched->final_url) +
                             ikigai::toolkit::JsonEscapedSize(title) +
                             ikigai::toolkit::JsonEscapedSize(response.content_type) + 1024;
  const std::size_t budget = ikigai::toolkit::kOutputBudget - std::min<std::size_t>(fields, 30000);
  const std::size_t kept = ikigai::toolkit::HeadFitting(rest, budget);

  Json answer = {{"url", url},
                 {"final_url", fetched->final_url},
                 {"status", response.status},
                 {"content_type", response.content_type},
                 {"title", title},
                 {"content", rest.substr(0, kept)},
                 {"truncated", kept < rest.size()}};
  if (kept < rest.size()) answer["next_offset"] = start + kept;
  answer["total_length"] = total;
  if (response.body_cut) {
    answer["note"] = "The response is larger than " + SizeText(web::kMaxDownloadBytes) +
                     ": only its beginning was read and converted.";
  }
  return answer;
}

}  // namespace

int main(int argc, char** argv) { return ikigai::toolkit::RunTool(argc, argv, {kSchema, Run}); }
