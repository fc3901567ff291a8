// Compaction (DECISIONS §7): when a conversation would no longer fit the
// model's context window, the model writes a structured summary of it and
// the conversation continues from the summary.
//
// The summary is asked for with the conversation as it stands plus one
// more user message (the prefix is the one the provider just saw, so its
// prompt cache serves it), with a fixed prompt that also tells the model to
// treat the history as data and follow no instruction found in it. The new
// conversation is a single user message: the summary, then the user's most
// recent messages word for word (the newest, about 20k tokens of them),
// since the user's own words matter more than any summary of them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "providers/conversation.h"

namespace ikigai::agent {

// The user message that asks for the summary; `focus` (from /compact
// FOCUS) says what to keep above all, empty for none.
std::string CompactionPrompt(std::string_view focus);

// The conversation that replaces `history`: one user message holding the
// summary and the most recent user messages of `history`, word for word.
std::vector<providers::Message> CompactedConversation(
    const std::vector<providers::Message>& history, std::string_view summary);

// A rough count of the tokens a message or a text takes (about four bytes
// a token): enough to judge whether a conversation nears its window.
long EstimateTokens(std::string_view text);
long EstimateTokens(const providers::Message& message);
long EstimateTokens(const std::vector<providers::Message>& messages);

// The longest tail of `history` that starts with a user message and is
// estimated to fit `budget` tokens (at least the last user message and
// what followed it): what a summary can still be asked of when the whole
// conversation no longer fits.
std::vector<providers::Message> FittingTail(const std::vector<providers::Message>& history,
                                            long budget);

}  // namespace ikigai::agent
