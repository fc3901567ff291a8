// The permission layer's view of a bash line: read-only detection
// (src/permissions/read_only_command.h), the commands a deny rule sees
// (reachable_commands.h) and allow and deny rules (rules.h). The input is a
// rule on its first line and the command line (or, for a path rule, the
// path) after it.
//
// Invariants: a read-only line has no substitution and writes no file; a
// deny rule refuses whatever the same allow rule covers (a deny rule must
// never be narrower than the allow rule written the same way).
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/shell_words.h"
#include "fuzz_support.h"
#include "permissions/reachable_commands.h"
#include "permissions/read_only_command.h"
#include "permissions/rules.h"

namespace permissions = ikigai::permissions;
namespace shell = ikigai::shell;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [rule_text, line] = ikigai::fuzz::SplitOnce(ikigai::fuzz::AsText(data, size), '\n');

  if (permissions::IsReadOnlyCommand(line)) {
    FUZZ_CHECK(!shell::HasSubstitution(line));
    for (const shell::SimpleCommand& command : shell::SplitCommands(line)) {
      for (const std::string& file : command.output_files) FUZZ_CHECK(file == "/dev/null");
    }
  }
  const permissions::ReachableCommands reach = permissions::FindReachableCommands(line);
  for (const shell::SimpleCommand& command : reach.commands) {
    FUZZ_CHECK(!command.words.empty() || !command.output_files.empty());
  }
  (void)permissions::LooseWords(line);

  auto rule = permissions::ParseRule(rule_text);
  if (!rule) {
    FUZZ_CHECK(!rule.error().empty());
    return 0;
  }
  const permissions::Place place{"/nonexistent-ikigai-fuzz/work", "/nonexistent-ikigai-fuzz/work"};
  const std::string text(line);
  const nlohmann::json arguments = rule->tool == "bash"
                                       ? nlohmann::json{{"command", text}}
                                       : nlohmann::json{{"file_path", text}, {"url", text}};
  const bool allowed =
      permissions::RuleMatches(*rule, rule->tool, arguments, place, permissions::Match::kEvery);
  const bool denied =
      permissions::RuleMatches(*rule, rule->tool, arguments, place, permissions::Match::kAny);
  FUZZ_CHECK(!allowed || denied);
  FUZZ_CHECK(permissions::AllowedByRules({*rule}, rule->tool, arguments, place) == allowed);
  // "An allow rule with a SPEC never covers a line with a substitution."
  if (rule->tool == "bash" && rule->spec && allowed) FUZZ_CHECK(!shell::HasSubstitution(line));
  return 0;
}
