// Typed access to a call's arguments, checked against the tool's own schema.
//
// Args::Parse validates the input once, up front, against the "parameters"
// JSON Schema the tool prints for --schema: the input must be an object,
// every required parameter present, every declared parameter of its
// declared type (one of them, for a list of types). Each violation is an
// INVALID_ARG error naming the parameter. After that, the accessors cannot
// fail: asking for an undeclared parameter or the wrong type is a bug in
// the tool and aborts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "toolkit/json.h"
#include "toolkit/tool_error.h"

namespace ikigai::toolkit {

class Args {
 public:
  // `input` is the raw stdin text; `parameters` the schema's "parameters".
  // Args keeps a pointer to `parameters`, which must outlive it: a
  // temporary (say, an nlohmann::json converted on the way) is refused.
  static Result<Args, ToolError> Parse(std::string_view input, const Json& parameters);
  static Result<Args, ToolError> Parse(std::string_view input, Json&& parameters) = delete;

  const std::string& String(std::string_view name) const;  // required
  std::optional<std::string> OptionalString(std::string_view name) const;
  std::optional<std::int64_t> OptionalInt(std::string_view name) const;
  bool Bool(std::string_view name, bool fallback) const;
  // An array parameter as given (its items are the tool's to check); null if absent.
  const Json* Array(std::string_view name) const;

 private:
  Args(Json values, const Json& parameters)
      : values_(std::move(values)), parameters_(&parameters) {}
  const Json* Find(std::string_view name, std::string_view type) const;

  Json values_;
  const Json* parameters_;
};

}  // namespace ikigai::toolkit
