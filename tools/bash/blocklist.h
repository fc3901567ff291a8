// A small blocklist of commands that destroy a machine or its data beyond
// repair (DECISIONS §4): fork bombs, recursive rm of / or of the home
// directory, mkfs on a device, and writes onto a block device (dd of=,
// redirections, tee).
//
// It is a seatbelt against a model's worst mistakes, not a sandbox: it reads
// the command as written (quotes removed, nothing expanded), so it cannot
// see through variables, scripts or aliases, and it errs towards letting
// ordinary commands run. It looks into `sh -c '...'`, `bash -c`, `su -c`,
// `eval` and command substitutions (quoted or not, in here-documents too),
// and past command wrappers (sudo, env, nohup, timeout, nice, ...).
//
// One deliberate false positive: the fork bomb shape is looked for in the
// whole text, quotes included, so even `echo ':(){ :|:& };:' > notes.txt` is
// refused. Quoted text is exactly how a bomb reaches `bash -c`, and there is
// no good reason to run one; the text can be written with file_write.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ikigai::bash_tool {

struct Blocked {
  std::string reason;   // what the command would do, no final period
  std::string instead;  // what to do instead, a full sentence
};

// `home_directory` (usually $HOME; may be empty) is also protected from
// recursive rm when named by its absolute path.
std::optional<Blocked> CheckCommand(std::string_view command, std::string_view home_directory = {});

// "Command blocked: <reason>. <instead>"
std::string BlockedMessage(const Blocked& blocked);

}  // namespace ikigai::bash_tool
