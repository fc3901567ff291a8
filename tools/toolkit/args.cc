#include "toolkit/args.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "toolkit/error_codes.h"

namespace ikigai::toolkit {
namespace {

[[noreturn]] void Bug(std::string_view what, std::string_view name) {
  std::fprintf(stderr, "tool bug: %.*s '%.*s'\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(name.size()), name.data());
  std::abort();
}

std::string_view TypeName(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

bool HasType(const Json& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    // 5.0 is an integer in JSON Schema; models sometimes send it.
    if (!v.is_number_float()) return false;
    const double d = v.get<double>();
    return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e18;
  }
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return true;  // a type we do not check
}

std::string Article(std::string_view type) {
  const bool vowel =
      !type.empty() && std::string_view("aeiou").find(type[0]) != std::string_view::npos;
  return std::string(vowel ? "an " : "a ") + std::string(type);
}

// A parameter's declared "type": one name or, as JSON Schema allows, a list
// of names (["string", "null"]). Empty: not checked (absent, or neither).
std::vector<std::string> DeclaredTypes(const Json& spec) {
  std::vector<std::string> types;
  const auto it = spec.find("type");
  if (it == spec.end()) return types;
  if (it->is_string()) types.push_back(it->get<std::string>());
  if (it->is_array()) {
    for (const Json& type : *it) {
      if (type.is_string()) types.push_back(type.get<std::string>());
    }
  }
  return types;
}

// Whether `spec` declares exactly `type` (a typed accessor needs that: with
// a list the value may be of another type).
bool DeclaresOnly(const Json& spec, std::string_view type) {
  const auto it = spec.find("type");
  return it != spec.end() && it->is_string() && it->get_ref<const std::string&>() == type;
}

// "a string", "a string or an integer".
std::string Described(const std::vector<std::string>& types) {
  std::string text;
  for (const std::string& type : types) text += (text.empty() ? "" : " or ") + Article(type);
  return text;
}

ToolError Invalid(std::string message) { return {code::kInvalidArg, std::move(message)}; }

}  // namespace

Result<Args, ToolError> Args::Parse(std::string_view input, const Json& parameters) {
  Json values = Json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (values.is_discarded()) {
    // Parse again with exceptions on, only to get the parser's message.
    std::string detail;
    try {
      const Json unused = Json::parse(input);
      (void)unused;
    } catch (const Json::parse_error& e) {
      detail = e.what();
      // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
      if (auto pos = detail.find("] "); pos != std::string::npos) detail.erase(0, pos + 2);
    }
    return Err(Invalid("Input is not valid JSON (" + detail +
                       "). Send one JSON object with the tool's parameters on stdin."));
  }
  if (!values.is_object()) {
    return Err(Invalid("Input must be a JSON object of parameters, got " +
                       std::string(TypeName(values)) + "."));
  }
  const Json& properties = parameters.at("properties");
  if (auto it = parameters.find("required"); it != parameters.end()) {
    for (const auto& name : *it) {
      const std::string key = name.get<std::string>();
      if (!values.contains(key) || values[key].is_null()) {
        return Err(Invalid("Missing required parameter '" + key + "'."));
      }
    }
  }
  for (const auto& [key, spec] : properties.items()) {
    auto it = values.find(key);
    if (it == values.end() || it->is_null()) continue;  // null means "not given"
    const std::vector<std::string> types = DeclaredTypes(spec);
    if (!types.empty() && std::none_of(types.begin(), types.end(), [&](const std::string& type) {
          return HasType(*it, type);
        })) {
      return Err(Invalid("Parameter '" + key + "' must be " + Described(types) + ", got " +
                         std::string(TypeName(*it)) + "."));
    }
  }
  return Args(std::move(values), parameters);
}

const Json* Args::Find(std::string_view name, std::string_view type) const {
  const Json& properties = parameters_->at("properties");
  auto spec = properties.find(name);
  if (spec == properties.end() || !DeclaresOnly(*spec, type)) {
    Bug("parameter not declared as " + std::string(type), name);
  }
  auto it = values_.find(name);
  if (it == values_.end() || it->is_null()) return nullptr;
  return &*it;
}

const std::string& Args::String(std::string_view name) const {
  const Json* v = Find(name, "string");
  if (v == nullptr) Bug("required parameter not marked required", name);
  return v->get_ref<const std::string&>();
}

std::optional<std::string> Args::OptionalString(std::string_view name) const {
  const Json* v = Find(name, "string");
  if (v == nullptr) return std::nullopt;
  return v->get<std::string>();
}

std::optional<std::int64_t> Args::OptionalInt(std::string_view name) const {
  const Json* v = Find(name, "integer");
  if (v == nullptr) return std::nullopt;
  if (v->is_number_float()) return static_cast<std::int64_t>(v->get<double>());
  if (v->is_number_unsigned() &&
      v->get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return v->get<std::int64_t>();
}

const Json* Args::Array(std::string_view name) const { return Find(name, "array"); }

bool Args::Bool(std::string_view name, bool fallback) const {
  const Json* v = Find(name, "boolean");
  return v == nullptr ? fallback : v->get<bool>();
}

}  // namespace ikigai::toolkit
