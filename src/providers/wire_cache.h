// Serialized pieces of a conversation kept from one request to the next.
//
// Each request re-sends the whole conversation; in a long session that is
// hundreds of messages, and serializing them all again each round would
// make the host's time per round grow with the session
// (bench/long-session.sh). A provider asks for the text of each piece (one
// message, or a few that become one message on its wire), and gets the
// previous request's text back while the piece's messages are unchanged:
// compared, not hashed, so a reuse is never wrong. Pieces are by position;
// a conversation that changed before a piece (compacted, cleared) makes new
// ones from there.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "providers/conversation.h"

namespace ikigai::providers {

class WireCache {
 public:
  // The text of piece `index`: made by `make` unless the piece at `index`
  // was last made from equal `messages` with the same `variant` (a flag the
  // text depends on, such as carrying a cache breakpoint).
  const std::string& Piece(std::size_t index, std::span<const Message> messages, int variant,
                           const std::function<std::string()>& make);
  // Forgets the pieces from `count` on.
  void Keep(std::size_t count);

 private:
  struct Entry {
    std::vector<Message> messages;
    int variant = 0;
    std::string text;
  };
  std::vector<Entry> entries_;
};

// `object`, the text of a JSON object, with a "messages" member holding
// `messages` (a JSON array's text) added at its end.
std::string WithMessages(std::string object, const std::string& messages);

}  // namespace ikigai::providers
