// The system prompt: ikigai's default (the bash fundamentals of seeds/002 and
// the tool conventions), or the configured replacement, with the project's
// AGENTS.md appended.
#pragma once

#include <string>

namespace ikigai::agent {

std::string DefaultSystemPrompt();

// `base` is the prompt to use (the default, or the configured one); the
// AGENTS.md of `project_dir`, if there is one, is appended under a heading.
std::string ComposeSystemPrompt(const std::string& base, const std::string& project_dir);

}  // namespace ikigai::agent
