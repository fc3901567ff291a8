// What a tool may ask of the user through the host channel (DECISIONS §9):
//
//   elicit {message, options?, requestedSchema?}
//       A question, shaped like MCP's elicitation: free text, one of
//       numbered options (or free text), or a small form (a flat object of
//       string, number, integer and boolean fields, enums allowed). The
//       answer is {"action": "accept", "content": {...}}, or "decline" (the
//       user would not answer) or "cancel" (dismissed). Without a user (-p,
//       mcp serve) it is the error kNoUser, never an empty answer.
//   progress {message}
//       A line shown to the user while the tool runs (a notification).
//
// The front end is the seam: the REPL asks on its terminal, the others
// have nobody to ask. HostMethods routes these and hands the rest (the
// subagent methods) on.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "hostapi/host_channel.h"

namespace ikigai::hostapi {

struct Question {
  std::string tool;  // who asks
  std::string message;
  std::vector<std::string> options;  // may be empty
  nlohmann::json schema;             // requestedSchema, checked; null without one
};

struct Reply {
  enum class Action { kAccept, kDecline, kCancel };
  Action action = Action::kCancel;
  nlohmann::json content;  // kAccept: the answer's fields
};

// The user, as a front end reaches them.
class User {
 public:
  virtual ~User() = default;
  // Asks and waits; `cancel_fd` readable: the call is over, give up
  // (kCancel). nullopt: nobody can answer here.
  virtual std::optional<Reply> Elicit(const Question& question, int cancel_fd) = 0;
  virtual void Progress(const std::string& tool, const std::string& message) = 0;
};

// elicit's params, checked: errors say what is wrong.
Result<Question, std::string> ParseQuestion(const nlohmann::json& params);

// The content of an answer typed to a question with options or none:
// a number picks an option ({"answer": text, "option": n}), anything else
// is the answer itself ({"answer": text}). nullopt: blank.
std::optional<nlohmann::json> AnswerContent(const Question& question, const std::string& typed);

// One field of a form: the value `typed` gives it, or why it cannot.
// Blank is null (the caller decides whether the field may be left out).
Result<nlohmann::json, std::string> FieldValue(const nlohmann::json& field,
                                               const std::string& typed);

nlohmann::json ReplyJson(const Reply& reply);

// Where nobody can answer (-p, `ikigai tool call`): every question is
// NO_USER; progress lines go to `err` as "[progress] TOOL: line".
class NoUser : public User {
 public:
  explicit NoUser(std::ostream& err) : err_(err) {}
  std::optional<Reply> Elicit(const Question&, int) override { return std::nullopt; }
  void Progress(const std::string& tool, const std::string& message) override;

 private:
  std::ostream& err_;
  std::mutex mutex_;
};

// The host's methods: elicit and progress for `user` (null: nobody to
// ask), everything else for `next` (null: unknown methods).
class HostMethods : public Methods {
 public:
  HostMethods(std::shared_ptr<User> user, std::shared_ptr<Methods> next)
      : user_(std::move(user)), next_(std::move(next)) {}
  MethodResult Call(const std::string& method, const nlohmann::json& params,
                    const CallContext& context) override;

 private:
  std::shared_ptr<User> user_;
  std::shared_ptr<Methods> next_;
};

}  // namespace ikigai::hostapi
