#include "file_edit/line_endings.h"

namespace ikigai::file_edit {

LineEnding DetectLineEnding(std::string_view text) {
  std::size_t crlf = 0, lf = 0;
  for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
    if (i > 0 && text[i - 1] == '\r') {
      ++crlf;
    } else {
      ++lf;
    }
  }
  if (crlf == 0 && lf == 0) return LineEnding::kNone;
  if (crlf > lf) return LineEnding::kCrlf;
  return crlf == 0 ? LineEnding::kLf : LineEnding::kMixedLf;
}

std::string MatchLineEndings(std::string_view inserted, LineEnding ending) {
  std::string out;
  out.reserve(inserted.size() + inserted.size() / 16);
  for (std::size_t i = 0; i < inserted.size(); ++i) {
    const char c = inserted[i];
    const bool crlf_here = c == '\r' && i + 1 < inserted.size() && inserted[i + 1] == '\n';
    if (ending == LineEnding::kLf && crlf_here) continue;  // the '\n' follows
    if (ending == LineEnding::kCrlf && c == '\n' && (i == 0 || inserted[i - 1] != '\r')) {
      out += '\r';
    }
    out += c;
  }
  return out;
}

}  // namespace ikigai::file_edit
