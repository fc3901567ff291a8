// Splitting a shell command line into simple commands, well enough for the
// bash tool's blocklist and the host's permission checks (read-only
// detection, allow and deny rules) to look at each command's name,
// arguments and output files. One copy, in base, for both.
//
// Not a shell parser. It knows quotes ('...', "...", $'...', backslash), the
// operators between commands (; & | && || newline, ( ) and the command
// substitutions `...` and $(...), whose contents are commands too),
// redirections (> >> >| &> N> >& <> < <& <<<) and here-documents, whose
// bodies are data and are skipped, arithmetic ((...)), $((...)) and $[...],
// kept as one word, and # comments. Words come out with their quotes
// removed; expansions ($HOME, ~, *) are kept as written, unexpanded; a
// substitution inside double quotes stays inside its word, as written.
//
// What runs inside a substitution that is not at the top level (inside
// double quotes, an unquoted here-document, a backquote) is not among the
// commands: FindSubstitutions lists the substitutions for a caller that
// must look inside.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ikigai::shell {

struct SimpleCommand {
  std::vector<std::string> words;
  // Files opened for writing: targets of > >> >| &> <> and of >& when it
  // names a file; not descriptor duplications (2>&1, >&2, 2>&-).
  std::vector<std::string> output_files;
};

// Commands without words or output files are left out.
std::vector<SimpleCommand> SplitCommands(std::string_view command_line);

struct Substitution {
  enum class Kind { kCommand, kBackquote, kProcess, kArithmetic } kind;
  // The text inside, as the shell reads it: $( ) <( ) >( ) and `...` hold
  // a script (backquote escapes undone), arithmetic an expression, whose
  // own substitutions are evaluated too.
  std::string body;
};

// The substitutions the shell would expand in the line: $(...), `...`,
// <(...), >(...), $((...)), $[...] and ((...)), unquoted, inside double
// quotes, inside ${...} and inside the bodies of unquoted here-documents;
// not inside single quotes, $'...', comments or quoted here-documents.
// Only the outermost are listed: look for more in their bodies.
std::vector<Substitution> FindSubstitutions(std::string_view command_line);

// Whether FindSubstitutions finds any: some command of the line runs, or
// some word is made, by text no rule was checked against.
bool HasSubstitution(std::string_view command_line);

}  // namespace ikigai::shell
