#include "hostapi/user_requests.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "base/format.h"
#include "base/visible_text.h"

namespace ikigai::hostapi {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxMessageBytes = 8192;
constexpr std::size_t kMaxOptions = 20;
constexpr std::size_t kMaxFields = 20;
constexpr std::size_t kMaxLabelBytes = 500;  // an option, a choice, a title: one line

// A form field: {"type": string|number|integer|boolean, "enum"?, "title"?,
// "description"?, "default"?}.
std::string FieldProblem(const std::string& name, const json& field) {
  const std::string where = "requestedSchema.properties." + name;
  if (!field.is_object()) return where + " must be an object";
  const json type = field.value("type", json());
  if (!type.is_string() ||
      (type != "string" && type != "number" && type != "integer" && type != "boolean")) {
    return where + ".type must be \"string\", \"number\", \"integer\" or \"boolean\"";
  }
  if (field.contains("enum")) {
    const json& choices = field["enum"];
    if (type != "string" || !choices.is_array() || choices.empty()) {
      return where + ".enum must be a non-empty array of strings on a string field";
    }
    for (const json& choice : choices) {
      if (!choice.is_string() || choice.get<std::string>().size() > kMaxLabelBytes) {
        return where + ".enum must hold strings of at most " + std::to_string(kMaxLabelBytes) +
               " bytes";
      }
    }
  }
  for (const char* key : {"title", "description"}) {
    if (field.contains(key) &&
        (!field[key].is_string() || field[key].get<std::string>().size() > kMaxLabelBytes)) {
      return where + "." + key + " must be a string of at most " + std::to_string(kMaxLabelBytes) +
             " bytes";
    }
  }
  if (field.contains("default")) {
    // The default is what Enter accepts: an answer the field could be given.
    const json& value = field["default"];
    const bool fits =
        type == "boolean"   ? value.is_boolean()
        : type == "integer" ? value.is_number_integer()
        : type == "number"  ? value.is_number()
        : field.contains("enum")
            ? std::find(field["enum"].begin(), field["enum"].end(), value) != field["enum"].end()
            : value.is_string();
    if (!fits) return where + ".default must be a value of the field's type (one of its enum)";
  }
  return "";
}

std::string SchemaProblem(const json& schema) {
  if (!schema.is_object() || schema.value("type", json()) != "object" ||
      !schema.contains("properties") || !schema["properties"].is_object()) {
    return "requestedSchema must be {\"type\": \"object\", \"properties\": {...}}";
  }
  const json& properties = schema["properties"];
  if (properties.empty() || properties.size() > kMaxFields) {
    return "requestedSchema.properties must have 1 to " + std::to_string(kMaxFields) + " fields";
  }
  for (const auto& [name, field] : properties.items()) {
    if (std::string problem = FieldProblem(name, field); !problem.empty()) return problem;
  }
  const json required = schema.value("required", json::array());
  if (!required.is_array()) return "requestedSchema.required must be an array of field names";
  for (const json& name : required) {
    if (!name.is_string() || !properties.contains(name.get<std::string>())) {
      return "requestedSchema.required names a field that is not in properties";
    }
  }
  return "";
}

}  // namespace

Result<Question, std::string> ParseQuestion(const json& params) {
  if (!params.is_object()) return Err(std::string("params must be an object"));
  Question question;
  const json message = params.value("message", json());
  if (!message.is_string() || IsBlank(message.get<std::string>())) {
    return Err(std::string("\"message\" must be a non-empty string: the question to ask"));
  }
  question.message = message.get<std::string>();
  if (question.message.size() > kMaxMessageBytes) {
    return Err("\"message\" is longer than " + std::to_string(kMaxMessageBytes) +
               " bytes: ask a shorter question");
  }
  if (params.contains("options") && !params["options"].is_null()) {
    const json& options = params["options"];
    if (!options.is_array() || options.empty() || options.size() > kMaxOptions) {
      return Err("\"options\" must be an array of 1 to " + std::to_string(kMaxOptions) +
                 " strings");
    }
    for (const json& option : options) {
      if (!option.is_string() || IsBlank(option.get<std::string>()) ||
          option.get<std::string>().size() > kMaxLabelBytes) {
        return Err("each of \"options\" must be a non-empty string of at most " +
                   std::to_string(kMaxLabelBytes) + " bytes");
      }
      question.options.push_back(option.get<std::string>());
    }
  }
  if (params.contains("requestedSchema") && !params["requestedSchema"].is_null()) {
    if (!question.options.empty()) {
      return Err(std::string("give \"options\" or \"requestedSchema\", not both"));
    }
    if (std::string problem = SchemaProblem(params["requestedSchema"]); !problem.empty()) {
      return Err(std::move(problem));
    }
    question.schema = params["requestedSchema"];
  }
  return question;
}

std::optional<json> AnswerContent(const Question& question, const std::string& typed) {
  const std::string text(Trim(typed));
  if (text.empty()) return std::nullopt;
  if (!question.options.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
      text.size() <= 3) {
    const std::size_t number = std::stoul(text);
    if (number >= 1 && number <= question.options.size()) {
      return json{{"answer", question.options[number - 1]}, {"option", number}};
    }
  }
  return json{{"answer", text}};
}

Result<json, std::string> FieldValue(const json& field, const std::string& typed) {
  const std::string text(Trim(typed));
  if (text.empty()) return json();
  const std::string type = field.value("type", std::string("string"));
  if (field.contains("enum")) {
    const json& choices = field["enum"];
    if (text.find_first_not_of("0123456789") == std::string::npos && text.size() <= 3) {
      const std::size_t number = std::stoul(text);
      if (number >= 1 && number <= choices.size()) return choices[number - 1];
    }
    for (const json& choice : choices) {
      if (choice == text) return choice;
    }
    return Err("choose one of the numbers shown (1 to " + std::to_string(choices.size()) + ")");
  }
  if (type == "boolean") {
    const std::string lower = AsciiLower(text);
    if (lower == "y" || lower == "yes" || lower == "true") return json(true);
    if (lower == "n" || lower == "no" || lower == "false") return json(false);
    return Err(std::string("answer y or n"));
  }
  if (type == "number" || type == "integer") {
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (*end != '\0' || errno != 0 || !std::isfinite(value)) {
      return Err(std::string(type == "integer" ? "type a whole number" : "type a number"));
    }
    if (type == "integer") {
      if (value != std::floor(value) || std::fabs(value) > 9.0e15) {
        return Err(std::string("type a whole number"));
      }
      return json(static_cast<long long>(value));
    }
    return json(value);
  }
  return json(text);
}

void NoUser::Progress(const std::string& tool, const std::string& message) {
  std::lock_guard lock(mutex_);
  err_ << "[progress] " << VisibleText(tool, Layout::kOneLine) << ": "
       << VisibleText(message, Layout::kOneLine) << "\n"
       << std::flush;
}

json ReplyJson(const Reply& reply) {
  switch (reply.action) {
    case Reply::Action::kAccept:
      return {{"action", "accept"}, {"content", reply.content}};
    case Reply::Action::kDecline:
      return {{"action", "decline"}};
    case Reply::Action::kCancel:
      break;
  }
  return {{"action", "cancel"}};
}

MethodResult HostMethods::Call(const std::string& method, const json& params,
                               const CallContext& context) {
  if (method == "progress") {
    const json message = params.is_object() ? params.value("message", json()) : json();
    if (!message.is_string()) {
      return Err(
          RpcError{rpc_code::kInvalidParams, "\"message\" must be a string: the line to show"});
    }
    // One line: what follows a newline would break the display.
    std::string line = message.get<std::string>();
    line = line.substr(0, line.find('\n'));
    if (user_ && !IsBlank(line)) user_->Progress(context.tool, line.substr(0, 500));
    return json::object();
  }
  if (method == "elicit") {
    auto question = ParseQuestion(params);
    if (!question) return Err(RpcError{rpc_code::kInvalidParams, question.error()});
    question->tool = context.tool;
    std::optional<Reply> reply = user_ ? user_->Elicit(*question, context.cancel_fd) : std::nullopt;
    if (!reply) {
      return Err(RpcError{rpc_code::kNoUser,
                          "NO_USER: nobody can answer here (ikigai runs without a user: -p, a "
                          "subagent, an MCP client or `ikigai tool call`). Decide without "
                          "asking, and say in your answer what you assumed."});
    }
    return ReplyJson(*reply);
  }
  if (next_) return next_->Call(method, params, context);
  return Err(RpcError{rpc_code::kMethodNotFound,
                      "unknown method " + method + ": this host offers elicit and progress"});
}

}  // namespace ikigai::hostapi
