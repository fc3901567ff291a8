// How much a model can read at once, and when a conversation must be
// compacted before the next request (DECISIONS §7).
#pragma once

#include <string_view>

namespace ikigai::agent {

// The context window of a known model family (Claude, GPT-4.1/4o/5, the o
// series, Gemini 1.5 and 2.x and later), by its name's prefix, dated
// versions included ("claude-sonnet-4-5-20250929"); 128k tokens for an
// unknown name (a local model that has less says so when refused, and the
// conversation is compacted then).
long KnownContextWindow(std::string_view model);

// Tokens past which the next request is compacted first: the smaller of
// `percent` of the window and the window less the output budget less a
// 16k margin, never below a quarter of the window.
long CompactionThreshold(long window, long max_output_tokens, int percent);

}  // namespace ikigai::agent
