// file_edit's matching (tools/file_edit/edit.h): ApplyEdit on a file's
// content, old_string and new_string from the input, separated by NUL
// bytes: CONTENT \0 OLD \0 NEW [\0 anything: replace_all]. What the model
// is shown (the error's message and fields) must be valid UTF-8, whatever
// bytes the file holds; an exact edit changes the size by exactly the
// replaced bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/utf8.h"
#include "file_edit/candidates.h"
#include "file_edit/edit.h"
#include "fuzz_support.h"
#include "toolkit/error_codes.h"

namespace file_edit = ikigai::file_edit;

namespace {

std::size_t CountExact(std::string_view text, std::string_view needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parts = ikigai::fuzz::SplitAll(ikigai::fuzz::AsText(data, size), '\0');
  if (parts.size() < 3) return 0;
  const file_edit::EditRequest request{.content = parts[0],
                                       .old_string = parts[1],
                                       .new_string = parts[2],
                                       .replace_all = parts.size() > 3};
  auto outcome = file_edit::ApplyEdit(request);
  if (!outcome) {
    const ikigai::toolkit::ToolError& error = outcome.error();
    FUZZ_CHECK(!error.message.empty());
    FUZZ_CHECK(ikigai::utf8::IsValid(error.message));
    (void)error.ToJson().dump();  // throws on invalid UTF-8
    if (const auto lines = error.extra.find("lines"); lines != error.extra.end()) {
      FUZZ_CHECK(lines->size() <= file_edit::kMaxListedLines);
    }
    if (const auto candidates = error.extra.find("candidates"); candidates != error.extra.end()) {
      for (const auto& candidate : *candidates) {
        // Cut at kCandidateTextBytes, and "..." marks the cut.
        const std::string text = candidate.at("text").get<std::string>();
        FUZZ_CHECK(ikigai::utf8::IsValid(text));
        FUZZ_CHECK(text.size() <= file_edit::kCandidateTextBytes + 3);
      }
    }
    return 0;
  }
  if (outcome->whitespace_normalized) {
    FUZZ_CHECK(outcome->replacements == 1);
    FUZZ_CHECK(!request.replace_all);
    return 0;
  }
  FUZZ_CHECK(outcome->replacements == CountExact(request.content, request.old_string));
  FUZZ_CHECK(request.replace_all || outcome->replacements == 1);
  if (request.new_string.find_first_of("\r\n") == std::string_view::npos) {
    // Nothing for the line endings to change: exactly the bytes replaced.
    FUZZ_CHECK(outcome->content.size() + outcome->replacements * request.old_string.size() ==
               request.content.size() + outcome->replacements * request.new_string.size());
  }
  return 0;
}
