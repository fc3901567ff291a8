#include "providers/sse_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ikigai::providers {

void SseParser::Feed(std::string_view bytes, std::vector<SseEvent>& out) {
  std::size_t pos = 0;
  if (skip_lf_ && !bytes.empty()) {
    skip_lf_ = false;
    if (bytes[0] == '\n') pos = 1;
  }
  while (pos < bytes.size()) {
    const std::size_t end = bytes.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) {
      line_.append(bytes.substr(pos));
      return;
    }
    if (line_.empty()) {
      Line(bytes.substr(pos, end - pos), out);
    } else {
      line_.append(bytes.substr(pos, end - pos));
      Line(line_, out);
      line_.clear();
    }
    pos = end + 1;
    if (bytes[end] == '\r') {
      if (pos == bytes.size()) {
        skip_lf_ = true;  // the LF of a CRLF may come with the next chunk
      } else if (bytes[pos] == '\n') {
        ++pos;
      }
    }
  }
}

void SseParser::Line(std::string_view line, std::vector<SseEvent>& out) {
  if (first_line_) {
    first_line_ = false;
    if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  }
  if (line.empty()) {
    last_event_id_ = id_;
    if (has_data_) out.push_back({std::move(type_), std::move(data_)});
    type_.clear();
    data_.clear();
    has_data_ = false;
    return;
  }
  if (line[0] == ':') return;  // a comment (often a keep-alive)
  std::string_view field = line;
  std::string_view value;
  if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (value.starts_with(' ')) value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) id_.assign(value);
  } else if (field == "retry") {
    const bool digits = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    long long ms = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (digits && ec == std::errc() && end == value.data() + value.size()) {
      retry_ = std::chrono::milliseconds(ms);
    }
  }
  // Unknown fields: ignored.
}

}  // namespace ikigai::providers
