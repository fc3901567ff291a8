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
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "providers/conversation.h"

namespace ikigai::providers {

class WireCache {
 public:
  // Piece `index` of this request, given in order from 0: made by `make`
  // unless the piece at `index` was last made from equal `messages` with the
  // same `variant` (a flag the text depends on, such as carrying a cache
  // breakpoint). Returns its text, valid until the next call.
  std::string_view Piece(std::size_t index, std::span<const Message> messages, int variant,
                         const std::function<std::string()>& make);
  // Forgets the pieces from `count` on.
  void Keep(std::size_t count);
  // The texts of the pieces kept, in order, joined by commas (empty ones
  // left out): the members of the request's array. Kept from one request to
  // the next and only extended, so each round copies only its new pieces.
  const std::string& Joined() const { return joined_; }

 private:
  struct Entry {
    std::vector<Message> messages;
    int variant = 0;
    std::size_t begin = 0;  // the piece's text in joined_
    std::size_t end = 0;
  };
  std::vector<Entry> entries_;
  std::string joined_;
};

// The JSON text a request carries: compact, invalid UTF-8 replaced.
std::string Dump(const nlohmann::json& value);

// `object`, the text of a JSON object, with a member `name` added at its end:
// an array of `first` (if not empty) and then `members` (Joined()).
std::string WithArray(std::string_view object, std::string_view name, std::string_view first,
                      std::string_view members);

}  // namespace ikigai::providers
