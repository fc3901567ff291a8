// Every command a bash line can run, as far as the line shows it, for deny
// rules (rules.h): a deny rule must see `rm` in `echo "$(rm x)"`,
// `sh -c 'rm x'` and `timeout 5 rm x` alike.
//
// Read with the shell-words parser (base/shell_words.h): the line's simple
// commands; recursively, the scripts inside substitutions (unquoted, in
// double quotes, in unquoted here-documents, backquotes, process
// substitutions), the scripts given to `sh -c`, `bash -c`, `su -c`,
// `env -S`, `watch`, `trap`, `alias` and `eval`; and every command again
// past its wrappers (env, timeout, nice, nohup, xargs, command, exec, time,
// sudo, ...) and after `find -exec`. A command run by a path (`/bin/rm`)
// is listed as written; matching compares its base name.
//
// Some lines run commands that cannot be read from them: a command name
// made by an expansion (`$CMD`), a substitution's output used as words, a
// shell or interpreter reading a script from stdin, a file or code of
// another language, `source`, git with config given on its command line
// (aliases and pagers). Those are `opaque`: a deny rule then also looks for
// its words anywhere in the line's text.
#pragma once

#include <string_view>
#include <vector>

#include "base/shell_words.h"

namespace ikigai::permissions {

struct ReachableCommands {
  std::vector<shell::SimpleCommand> commands;
  bool opaque = false;
};

ReachableCommands FindReachableCommands(std::string_view line);

// The words of `text`, read loosely for a deny rule's last resort: quotes
// and backslashes dropped, split at blanks and at shell operators and
// expansion characters ( ; & | ( ) < > { } ` $ = ! , ), so that
// `echo "$(rm x)"`, `sh -c 'cd /;rm x'` and `{rm,x}` all hold `rm x`.
std::vector<std::string> LooseWords(std::string_view text);

}  // namespace ikigai::permissions
