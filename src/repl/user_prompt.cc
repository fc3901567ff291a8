#include "repl/user_prompt.h"

#include <poll.h>

#include "base/visible_text.h"
#include "repl/signals.h"

namespace ikigai::repl {
namespace {

using hostapi::Reply;
using nlohmann::json;

std::string OneLine(const std::string& text) { return VisibleText(text, Layout::kOneLine); }

// "name (a number, required): description"
std::string FieldLabel(const std::string& name, const json& field, bool required) {
  std::string label = field.value("title", name);
  const std::string type = field.value("type", std::string("string"));
  std::string hint = field.contains("enum") ? "a number"
                     : type == "boolean"    ? "y or n"
                     : type == "string"     ? ""
                     : type == "integer"    ? "a whole number"
                                            : "a number";
  if (!required) hint += std::string(hint.empty() ? "" : ", ") + "Enter to skip";
  if (field.contains("default")) {
    hint += std::string(hint.empty() ? "" : ", ") + "default " +
            field["default"].dump(-1, ' ', false, json::error_handler_t::replace);
  }
  if (!hint.empty()) label += " (" + hint + ")";
  if (field.contains("description")) label += ": " + field["description"].get<std::string>();
  return OneLine(label);
}

}  // namespace

std::optional<std::string> TerminalUser::ReadLine(const std::string& prompt, int cancel_fd,
                                                  Reply& reply) {
  const ReadResult read = reader_.Read(prompt, cancel_fd);
  switch (read.status) {
    case ReadResult::Status::kLine:
      return read.text;
    case ReadResult::Status::kInterrupted:
      reply.action = Reply::Action::kDecline;
      break;
    case ReadResult::Status::kEnd:
    case ReadResult::Status::kAborted:
      reply.action = Reply::Action::kCancel;
      break;
  }
  if (display_.style().animate) display_.Output("\n");
  return std::nullopt;
}

std::optional<json> TerminalUser::AskForm(const hostapi::Question& question, int cancel_fd,
                                          Reply& reply) {
  const json& properties = question.schema["properties"];
  const json required = question.schema.value("required", json::array());
  json content = json::object();
  for (const auto& [name, field] : properties.items()) {
    const bool must = std::find(required.begin(), required.end(), json(name)) != required.end();
    display_.Output("  " + FieldLabel(name, field, must) + "\n");
    if (field.contains("enum")) {
      std::string choices;
      for (std::size_t i = 0; i < field["enum"].size(); ++i) {
        choices += "    " + std::to_string(i + 1) + ". " +
                   OneLine(field["enum"][i].get<std::string>()) + "\n";
      }
      display_.Output(choices);
    }
    for (;;) {
      const auto typed = ReadLine("  " + OneLine(name) + "> ", cancel_fd, reply);
      if (!typed) return std::nullopt;
      auto value = hostapi::FieldValue(field, *typed);
      if (!value) {
        display_.Notice("  " + value.error() + "; Ctrl+C declines.");
        continue;
      }
      if (value->is_null() && field.contains("default")) *value = field["default"];
      if (value->is_null() && must) {
        display_.Notice("  This one needs an answer; Ctrl+C declines.");
        continue;
      }
      if (!value->is_null()) content[name] = *value;
      break;
    }
  }
  return content;
}

std::optional<Reply> TerminalUser::Elicit(const hostapi::Question& question, int cancel_fd) {
  std::lock_guard one_at_a_time(asking_);
  // Withdrawn while an earlier question was asked: never shown.
  pollfd ended{cancel_fd, POLLIN, 0};
  if (cancel_fd >= 0 && ::poll(&ended, 1, 0) > 0) return Reply{};
  // Ctrl+C answers the question, as at an approval, instead of cancelling
  // the turn behind it; SIGTERM or SIGHUP meanwhile still stops the turn.
  agent::Cancellation* const turn = turn_();
  signals::SetTurn(nullptr);
  question_shown_ = true;
  struct TurnBack {
    agent::Cancellation* turn;
    std::atomic<bool>& shown;
    ~TurnBack() {
      shown = false;
      signals::SetTurn(turn);
      if (signals::QuitSignal() != 0 && turn != nullptr) turn->Request();
    }
  } turn_back{turn, question_shown_};
  display_.StopSpinner();
  display_.EndLine();
  display_.Warning(OneLine(question.tool) + " asks:");
  display_.Output(VisibleText(question.message, Layout::kKeep) + "\n");
  Reply reply;
  if (!question.schema.is_null()) {
    display_.Notice("  (Ctrl+C declines.)");
    auto content = AskForm(question, cancel_fd, reply);
    if (!content) return reply;
    return Reply{Reply::Action::kAccept, std::move(*content)};
  }
  if (!question.options.empty()) {
    std::string listing;
    for (std::size_t i = 0; i < question.options.size(); ++i) {
      listing += "  " + std::to_string(i + 1) + ". " + OneLine(question.options[i]) + "\n";
    }
    display_.Output(listing);
  }
  display_.Notice(question.options.empty() ? "  (Type your answer; Ctrl+C declines.)"
                                           : "  (A number or your own answer; Ctrl+C declines.)");
  for (;;) {
    const auto typed = ReadLine("answer> ", cancel_fd, reply);
    if (!typed) return reply;
    if (auto content = hostapi::AnswerContent(question, *typed)) {
      return Reply{Reply::Action::kAccept, std::move(*content)};
    }
    display_.Notice("  Type an answer, or press Ctrl+C to decline.");
  }
}

void TerminalUser::Progress(const std::string& tool, const std::string& message) {
  const std::string line = OneLine(tool) + ": " + OneLine(message);
  // On a terminal the spinner carries it (but never over a question's
  // prompt); elsewhere it is a line.
  if (display_.style().animate) {
    if (question_shown_) return;
    display_.Spin(line);
  } else {
    display_.Notice(line);
  }
}

}  // namespace ikigai::repl
