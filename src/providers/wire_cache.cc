#include "providers/wire_cache.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ikigai::providers {

std::string_view WireCache::Piece(std::size_t index, std::span<const Message> messages, int variant,
                                  const std::function<std::string()>& make) {
  if (index < entries_.size()) {
    const Entry& entry = entries_[index];
    if (entry.variant == variant && std::equal(entry.messages.begin(), entry.messages.end(),
                                               messages.begin(), messages.end())) {
      return std::string_view(joined_).substr(entry.begin, entry.end - entry.begin);
    }
  }
  if (index > entries_.size()) {
    std::fputs("ikigai: bug: WireCache pieces given out of order\n", stderr);
    std::abort();
  }
  Keep(index);  // what follows a changed piece is made again too
  const std::string text = make();
  if (!text.empty() && !joined_.empty()) joined_ += ',';
  const std::size_t begin = joined_.size();
  joined_ += text;
  entries_.push_back(
      {std::vector<Message>(messages.begin(), messages.end()), variant, begin, joined_.size()});
  return std::string_view(joined_).substr(begin);
}

void WireCache::Keep(std::size_t count) {
  if (entries_.size() <= count) return;
  entries_.resize(count);
  joined_.resize(count == 0 ? 0 : entries_.back().end);
}

std::string Dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string WithArray(std::string_view object, std::string_view name, std::string_view first,
                      std::string_view members) {
  // A dumped object ends with '}'; "{}" has no member to follow.
  object.remove_suffix(1);
  std::string text;
  text.reserve(object.size() + name.size() + first.size() + members.size() + 8);
  text += object;
  if (object.size() > 1) text += ',';
  text += '"';
  text += name;
  text += "\":[";
  text += first;
  if (!first.empty() && !members.empty()) text += ',';
  text += members;
  text += "]}";
  return text;
}

}  // namespace ikigai::providers
