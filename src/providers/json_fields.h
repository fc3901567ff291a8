// Reading the fields of JSON a server sent, which may have any shape:
// nlohmann's operator[] asserts and get<T>() throws on a wrong type, so
// every access here checks the type and answers "absent" otherwise.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ikigai::providers {

// The member `key` of an object; nullptr when `value` is not an object or
// lacks it.
inline const nlohmann::json* Field(const nlohmann::json* value, std::string_view key) {
  if (value == nullptr || !value->is_object()) return nullptr;
  auto it = value->find(key);
  return it == value->end() ? nullptr : &*it;
}
inline const nlohmann::json* Field(const nlohmann::json& value, std::string_view key) {
  return Field(&value, key);
}

inline const std::string* StringField(const nlohmann::json* value) {
  return value != nullptr && value->is_string() ? value->get_ptr<const std::string*>() : nullptr;
}

inline std::optional<long> IntegerField(const nlohmann::json* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) return static_cast<long>(value->get<unsigned long>());
  if (value->is_number_integer()) return value->get<long>();
  return std::nullopt;
}

// The data of an event, shortened for an error message.
inline std::string Excerpt(std::string_view data) {
  constexpr std::size_t kMax = 120;
  std::string out(data.substr(0, kMax));
  if (data.size() > kMax) out += "...";
  return out;
}

}  // namespace ikigai::providers
