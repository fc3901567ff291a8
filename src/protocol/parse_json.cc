#include "protocol/parse_json.h"

namespace ikigai::protocol {

template <typename Json>
Result<Json, std::string> ParseJson(std::string_view text) {
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded()) return value;
  std::string message = "invalid JSON";
  try {
    const Json unused = Json::parse(text);
    (void)unused;
  } catch (const nlohmann::json::exception& e) {
    message = e.what();
    // Drop the "[json.exception.parse_error.101] " prefix.
    if (auto end = message.find("] "); message.starts_with("[json.") && end != std::string::npos) {
      message.erase(0, end + 2);
    }
  }
  return Err(std::move(message));
}

template Result<nlohmann::json, std::string> ParseJson(std::string_view);
template Result<nlohmann::ordered_json, std::string> ParseJson(std::string_view);

}  // namespace ikigai::protocol
