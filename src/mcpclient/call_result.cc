#include "mcpclient/call_result.h"

#include "base/format.h"
#include "base/utf8.h"

namespace ikigai::mcpclient {
namespace {

using json = nlohmann::json;

std::string StringField(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The size of base64 `data` once decoded.
std::size_t DecodedSize(const std::string& data) {
  std::size_t padding = 0;
  if (data.ends_with("==")) {
    padding = 2;
  } else if (data.ends_with("=")) {
    padding = 1;
  }
  return data.size() / 4 * 3 - std::min(padding, data.size() / 4 * 3);
}

std::string Binary(const std::string& mime, const std::string& data) {
  return "[" + (mime.empty() ? std::string("binary") : mime) + ", " +
         std::to_string(DecodedSize(data)) + " bytes]";
}

}  // namespace

std::string ContentText(const json& item) {
  if (!item.is_object()) return item.dump();
  const std::string type = StringField(item, "type");
  if (type == "text") return StringField(item, "text");
  if (type == "image" || type == "audio") {
    return Binary(StringField(item, "mimeType"), StringField(item, "data"));
  }
  if (type == "resource_link") return "[resource link: " + StringField(item, "uri") + "]";
  if (type == "resource") {
    auto resource = item.find("resource");
    if (resource == item.end() || !resource->is_object()) return "[resource]";
    const std::string uri = StringField(*resource, "uri");
    if (resource->contains("text")) {
      return "[resource " + uri + "]\n" + StringField(*resource, "text");
    }
    return "[resource " + uri + ", " +
           Binary(StringField(*resource, "mimeType"), StringField(*resource, "blob")).substr(1);
  }
  return "[" + (type.empty() ? std::string("unknown") : type) + " content]";
}

protocol::WrappedJson WrapCallResult(const json& result, std::size_t output_limit) {
  std::string text;
  if (auto content = result.find("content"); content != result.end() && content->is_array()) {
    for (const json& item : *content) {
      if (!text.empty()) text += "\n";
      text += ContentText(item);
    }
  }
  text = utf8::Repair(text);
  bool cut = false;
  const std::size_t full = text.size();
  if (output_limit > 0 && text.size() > output_limit) {
    text.resize(utf8::SafePrefixLength(text, output_limit));
    cut = true;
  }
  // A server's answer may hold anything: only a true boolean is an error.
  const auto is_error_it = result.find("isError");
  const bool is_error = is_error_it != result.end() && *is_error_it == true;
  protocol::WrappedJson body = protocol::WrappedJson::object();
  if (is_error) {
    body["error"] = text.empty() ? "the tool reported an error without a message" : text;
    body["error_code"] = "TOOL_ERROR";
  } else {
    body["output"] = text;
    if (auto structured = result.find("structuredContent");
        structured != result.end() && structured->is_object()) {
      const std::string dumped = structured->dump();
      if (output_limit == 0 || dumped.size() <= output_limit) {
        body["structuredContent"] = protocol::WrappedJson::parse(dumped);
      } else {
        body["structuredContent_dropped"] = "larger than " + FormatSize(output_limit);
      }
    }
  }
  if (cut) {
    body["truncated"] = "the output was " + FormatSize(full) + "; only the first " +
                        FormatSize(output_limit) + " are shown";
  }
  return protocol::WrapSuccess(std::move(body));
}

}  // namespace ikigai::mcpclient
