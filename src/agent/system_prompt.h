// The system prompt: ikigai's default (the bash fundamentals of seeds/002 and
// the tool conventions), or the configured replacement, with the project's
// AGENTS.md appended.
#pragma once

#include <cstddef>
#include <string>

namespace ikigai::agent {

std::string DefaultSystemPrompt();

inline constexpr std::size_t kMaxAgentsMd = 256 * 1024;

struct ComposedPrompt {
  std::string text;
  std::string problem;  // for the user: why AGENTS.md was left out or cut; empty if fine
};

// `base` is the prompt to use (the default, or the configured one); the
// AGENTS.md of `project_dir`, if there is one, is appended under a heading.
// AGENTS.md is read either way (trusted folder or not: it is text), but only
// as a regular file inside the project, at most kMaxAgentsMd bytes (a note
// says where it was cut): a FIFO, a device or a link leading outside the
// project is left out and `problem` says why.
ComposedPrompt ComposeSystemPrompt(const std::string& base, const std::string& project_dir);

}  // namespace ikigai::agent
