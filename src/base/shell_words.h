// Splitting a shell command line into simple commands, well enough for the
// bash tool's blocklist and the host's read-only detection (permissions) to
// look at each command's name, arguments and output files. One copy, in
// base, for both.
//
// Not a shell parser. It knows quotes ('...', "...", backslash), the
// operators between commands (; & | && || newline, ( ) and the command
// substitutions `...` and $(...), whose contents are commands too),
// redirections (> >> >| &> N> >& < <& <<<) and here-documents, whose bodies
// are data and are skipped, and # comments. Words come out with their quotes
// removed; expansions ($HOME, ~, *) are kept as written, unexpanded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ikigai::shell {

struct SimpleCommand {
  std::vector<std::string> words;
  std::vector<std::string> output_files;  // targets of > >> >| &> >&
};

// Commands without words or output files are left out.
std::vector<SimpleCommand> SplitCommands(std::string_view command_line);

// Whether the line has a command substitution ($(...), `...`) or a process
// substitution (<(...), >(...)) outside single quotes.
bool HasSubstitution(std::string_view command_line);

}  // namespace ikigai::shell
