#include "providers/wire_cache.h"

#include <algorithm>

namespace ikigai::providers {

const std::string& WireCache::Piece(std::size_t index, std::span<const Message> messages,
                                    int variant, const std::function<std::string()>& make) {
  if (index < entries_.size()) {
    Entry& entry = entries_[index];
    if (entry.variant == variant && std::equal(entry.messages.begin(), entry.messages.end(),
                                               messages.begin(), messages.end())) {
      return entry.text;
    }
    entries_.resize(index);  // what follows a changed piece is rebuilt too
  }
  entries_.resize(index);
  entries_.push_back({std::vector<Message>(messages.begin(), messages.end()), variant, make()});
  return entries_.back().text;
}

void WireCache::Keep(std::size_t count) {
  if (entries_.size() > count) entries_.resize(count);
}

std::string WithMessages(std::string object, const std::string& messages) {
  // A dumped object ends with '}'; "{}" has no member to follow.
  object.pop_back();
  object.reserve(object.size() + messages.size() + 16);
  object += object.size() > 1 ? ",\"messages\":" : "\"messages\":";
  object += messages;
  object += '}';
  return object;
}

}  // namespace ikigai::providers
