// A skill's SKILL.md (Anthropic's Agent Skills format): YAML front matter
// between two "---" lines, then the Markdown body.
//
// Only `name` and `description` matter to ikigai, so rather than a YAML
// library this reads the subset skills are written in: top-level
// "key: value" lines whose value is plain, 'single-' or "double-quoted", or
// a literal (|) or folded (>) block with its chomping indicator (- or +);
// a plain or quoted value may go on over indented lines (folded into one
// line). Other keys (license, allowed-tools, metadata: with its nested
// lines) are skipped. Comments (# ...) and blank lines are ignored.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace ikigai::skills {

struct SkillDocument {
  std::string name;
  std::string description;
  std::string body;  // what follows the front matter, leading blank lines removed
};

// Errors say what is missing: "no front matter (SKILL.md must start with a
// line ---)", "the front matter does not end (no closing --- line)", "no
// name in the front matter", "no description in the front matter", "line
// 3 of the front matter: a quoted value does not end".
Result<SkillDocument, std::string> ParseSkillDocument(std::string_view text);

}  // namespace ikigai::skills
