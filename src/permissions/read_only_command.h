// Whether a bash command only reads (DECISIONS §6): then it runs without
// asking in every mode.
//
// Read with the bash tool's own shell-words parser (base/shell_words.h):
// every simple command of the line (pipelines, lists, subshells) must be a
// known read-only program used in a read-only way, no output may be
// redirected to a file (only to /dev/null or another descriptor), and there
// may be no command or process substitution. Anything unknown is not
// read-only: the cost of a wrong "no" is one question, of a wrong "yes" a
// command run unasked.
#pragma once

#include <string_view>

namespace ikigai::permissions {

bool IsReadOnlyCommand(std::string_view command);

}  // namespace ikigai::permissions
