#include "web_fetch/charset.h"

#include <iconv.h>

#include <cerrno>

#include "base/format.h"
#include "base/utf8.h"

namespace ikigai::web_fetch {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// The value after `charset=` at `pos` (quotes dropped), lowercased.
std::string CharsetValueAt(std::string_view text, std::size_t pos) {
  while (pos < text.size() && IsSpace(text[pos])) ++pos;
  if (pos < text.size() && (text[pos] == '"' || text[pos] == '\'')) ++pos;
  std::size_t end = pos;
  while (end < text.size() && !IsSpace(text[end]) && text[end] != '"' && text[end] != '\'' &&
         text[end] != ';' && text[end] != '>' && text[end] != '/') {
    ++end;
  }
  return AsciiLower(text.substr(pos, end - pos));
}

// Browsers read ISO-8859-1 and US-ASCII as windows-1252 (its superset): pages
// labelled Latin-1 routinely hold curly quotes in 0x80-0x9F.
std::string IconvName(std::string_view charset) {
  if (charset == "iso-8859-1" || charset == "latin1" || charset == "iso8859-1" ||
      charset == "us-ascii" || charset == "ascii" || charset == "windows-1252") {
    return "WINDOWS-1252";
  }
  if (charset == "shift_jis" || charset == "sjis" || charset == "x-sjis") return "CP932";
  if (charset == "gb2312" || charset == "gbk") return "GB18030";
  return std::string(charset);
}

bool IsUtf8Name(std::string_view charset) {
  return charset.empty() || charset == "utf-8" || charset == "utf8" ||
         charset == "unicode-1-1-utf-8";
}

}  // namespace

std::string CharsetFromContentType(std::string_view content_type) {
  const std::string lower = AsciiLower(content_type);
  const std::size_t at = lower.find("charset=");
  if (at == std::string::npos) return {};
  return CharsetValueAt(lower, at + 8);
}

std::string CharsetFromHtmlMeta(std::string_view html) {
  const std::string head = AsciiLower(html.substr(0, 4096));
  std::size_t pos = 0;
  while ((pos = head.find("<meta", pos)) != std::string::npos) {
    const std::size_t end = head.find('>', pos);
    const std::string_view tag = std::string_view(head).substr(
        pos, end == std::string::npos ? std::string::npos : end - pos);
    // <meta charset="x"> and <meta http-equiv="Content-Type" content="text/html; charset=x">
    // both have charset= in the tag.
    const std::size_t at = tag.find("charset=");
    if (at != std::string_view::npos) {
      std::string value = CharsetValueAt(tag, at + 8);
      if (!value.empty()) return value;
    }
    if (end == std::string::npos) break;
    pos = end;
  }
  return {};
}

std::string ToUtf8(std::string_view bytes, std::string_view charset) {
  std::string name(charset);
  if (bytes.starts_with("\xEF\xBB\xBF")) {
    bytes.remove_prefix(3);
    name = "utf-8";
  } else if (bytes.starts_with("\xFF\xFE")) {
    bytes.remove_prefix(2);
    name = "utf-16le";
  } else if (bytes.starts_with("\xFE\xFF")) {
    bytes.remove_prefix(2);
    name = "utf-16be";
  }
  if (IsUtf8Name(name)) return utf8::Repair(bytes);
  const iconv_t cd = iconv_open("UTF-8", IconvName(name).c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return utf8::Repair(bytes);  // unknown: try UTF-8

  std::string out;
  out.reserve(bytes.size() + bytes.size() / 2);
  char buffer[16384];
  char* in = const_cast<char*>(bytes.data());
  std::size_t in_left = bytes.size();
  while (in_left > 0) {
    char* o = buffer;
    std::size_t out_left = sizeof buffer;
    const std::size_t r = iconv(cd, &in, &in_left, &o, &out_left);
    out.append(buffer, sizeof buffer - out_left);
    if (r != static_cast<std::size_t>(-1)) break;
    if (errno == E2BIG) continue;
    // EILSEQ (a byte invalid here) or EINVAL (a sequence cut at the end):
    // one U+FFFD, skip a byte, go on.
    out.append(utf8::kReplacement);
    ++in;
    --in_left;
    iconv(cd, nullptr, nullptr, nullptr, nullptr);
  }
  iconv_close(cd);
  return utf8::Repair(out);  // iconv's output is UTF-8 already; cheap insurance
}

}  // namespace ikigai::web_fetch
