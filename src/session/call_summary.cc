// How a call and its outcome are shown to the user in one line each, the
// same in every front end.
#include "session/call_summary.h"

#include "base/utf8.h"
#include "base/visible_text.h"

namespace ikigai::session {
namespace {

std::string OneLine(const std::string& text, std::size_t max) { return VisibleLine(text, max); }

std::string Name(const std::string& name) { return VisibleText(name, Layout::kOneLine); }

}  // namespace

std::string DescribeCallInFull(const providers::ToolCall& call) {
  const auto args =
      nlohmann::json::parse(call.arguments.empty() ? "{}" : call.arguments, nullptr, false);
  std::string text;
  if (args.is_object() && args.size() == 1 && args.contains("command") &&
      args["command"].is_string()) {
    text = args["command"].get<std::string>();
  } else {
    text = args.is_discarded() ? call.arguments
                               : args.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return VisibleText(text, Layout::kKeep);
}

std::string SummarizeCall(const providers::ToolCall& call) {
  const auto args =
      nlohmann::json::parse(call.arguments.empty() ? "{}" : call.arguments, nullptr, false);
  std::string what;
  if (args.is_object()) {
    for (const char* key : {"command", "file_path", "pattern"}) {
      if (auto it = args.find(key); it != args.end() && it->is_string()) {
        what = it->get<std::string>();
        break;
      }
    }
    if (auto path = args.find("path"); path != args.end() && path->is_string() && !what.empty()) {
      what += " in " + path->get<std::string>();
    }
  }
  if (what.empty()) what = call.arguments;
  return Name(call.name) + ": " + OneLine(what, 100);
}

std::string SummarizeResult(const protocol::WrappedJson& wrapped) {
  if (!wrapped.value("tool_success", false)) {
    const auto code = wrapped.find("error_code");
    return code != wrapped.end() && code->is_string() ? OneLine(code->get<std::string>(), 60)
                                                      : "failed";
  }
  const auto& result = wrapped["result"];
  std::string summary = "ok";
  if (result.is_object()) {
    if (result.contains("error_code") && result["error_code"].is_string()) {
      summary = OneLine(result["error_code"].get<std::string>(), 60);
    } else if (result.value("timed_out", false)) {
      summary = "timed out";
    } else if (result.contains("exit_code") && result["exit_code"].is_number_integer() &&
               result["exit_code"].get<int>() != 0) {
      summary = "exit " + std::to_string(result["exit_code"].get<int>());
    }
    if (result.value("truncated", false)) summary += ", truncated";
  }
  // The executor's protected-path check (below sandbox tier 2).
  if (const auto changed = wrapped.find("protected_paths_changed");
      changed != wrapped.end() && changed->is_array()) {
    summary += "; WARNING: changed protected paths:";
    for (const auto& path : *changed) {
      if (path.is_string()) summary += " " + OneLine(path.get<std::string>(), 200);
    }
  }
  return summary;
}

}  // namespace ikigai::session
