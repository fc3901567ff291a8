// The skills in the system prompt (DECISIONS §11): names and descriptions
// only, within a budget of about 2% of the context window, so that many
// skills cannot crowd out the conversation. Project skills come first,
// then the user's, then the system's (by name within a level); those that
// do not fit are left out of the prompt, named in a warning, and can still
// be loaded by name.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "skills/catalog.h"

namespace ikigai::skills {

// 2% of the window, at about 4 bytes a token.
std::size_t PromptBudget(long context_window_tokens);

struct PromptSection {
  std::string text;                   // empty without skills; else starts "\n\n# Skills\n"
  std::vector<std::string> left_out;  // names that did not fit
  std::string warning;                // for the user when some were left out; else empty
};

PromptSection ComposePromptSection(const Catalog& catalog, std::size_t budget_bytes);

// A description on one line, cut at 1024 bytes (the Agent Skills limit).
std::string OneLineDescription(const std::string& description);

}  // namespace ikigai::skills
