// The bash tool's shell-words parser (src/base/shell_words.h) and its
// blocklist (tools/bash/blocklist.h) on any command line. Words and
// substitution bodies are made from the line's own text, with quotes and
// escapes removed, so none is longer than the line; a substitution's body
// is strictly shorter, so looking inside bodies ends.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/shell_words.h"
#include "bash/blocklist.h"
#include "fuzz_support.h"

namespace shell = ikigai::shell;

namespace {

void CheckSubstitutions(std::string_view line, int depth) {
  const auto found = shell::FindSubstitutions(line);
  FUZZ_CHECK(shell::HasSubstitution(line) == !found.empty());
  if (depth == 4) return;
  for (const shell::Substitution& substitution : found) {
    FUZZ_CHECK(substitution.body.size() < line.size());
    CheckSubstitutions(substitution.body, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line = ikigai::fuzz::AsText(data, size);

  for (const shell::SimpleCommand& command : shell::SplitCommands(line)) {
    FUZZ_CHECK(!command.words.empty() || !command.output_files.empty());
    for (const std::string& word : command.words) FUZZ_CHECK(word.size() <= size);
    for (const std::string& file : command.output_files) FUZZ_CHECK(file.size() <= size);
  }
  CheckSubstitutions(line, 0);

  for (std::string_view home : {"", "/home/user"}) {
    if (const auto blocked = ikigai::bash_tool::CheckCommand(line, home)) {
      FUZZ_CHECK(!blocked->reason.empty() && !blocked->instead.empty());
      FUZZ_CHECK(ikigai::bash_tool::BlockedMessage(*blocked).starts_with("Command blocked: "));
    }
  }
  return 0;
}
