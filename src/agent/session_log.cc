#include "agent/session_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include "protocol/wrapper.h"

namespace ikigai::agent {
namespace {

using providers::Message;
using providers::Role;

std::string NewSessionId() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::random_device random;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%06x", random() & 0xFFFFFF);
  return std::string(stamp) + "-" + suffix;
}

std::string RoleName(Role role) {
  switch (role) {
    case Role::kUser:
      return "user";
    case Role::kAssistant:
      return "assistant";
    case Role::kToolResults:
      return "tool_results";
  }
  return "user";
}

// A session that ended while its tools ran (killed, or a second Ctrl+C)
// has an assistant turn whose calls have no results, which no provider
// accepts: each gets a CANCELLED result, where the results would have been.
void AnswerOpenCalls(std::vector<Message>& messages) {
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role != Role::kAssistant || messages[i].tool_calls.empty()) continue;
    if (i + 1 < messages.size() && messages[i + 1].role == Role::kToolResults) continue;
    Message results{Role::kToolResults, "", {}, {}};
    for (const auto& call : messages[i].tool_calls) {
      const auto wrapped = protocol::WrapFailure(
          "CANCELLED", "The session ended before this call finished; it may have run in part.");
      results.tool_results.push_back({call.id, call.name, wrapped.dump()});
    }
    messages.insert(messages.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(results));
  }
}

}  // namespace

std::string DefaultSessionDirectory() {
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : ".") + "/.ikigai/sessions";
}

nlohmann::json MessageToJson(const Message& message) {
  nlohmann::json j = {{"type", "message"}, {"role", RoleName(message.role)}};
  if (message.role != Role::kToolResults) j["text"] = message.text;
  if (!message.tool_calls.empty()) {
    j["tool_calls"] = nlohmann::json::array();
    for (const auto& call : message.tool_calls) {
      j["tool_calls"].push_back(
          {{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    }
  }
  if (message.role == Role::kToolResults) {
    j["results"] = nlohmann::json::array();
    for (const auto& result : message.tool_results) {
      j["results"].push_back(
          {{"call_id", result.call_id}, {"name", result.name}, {"content", result.content}});
    }
  }
  return j;
}

Result<Message, std::string> MessageFromJson(const nlohmann::json& j) {
  Message message;
  const std::string role = j.value("role", "");
  if (role == "user") {
    message.role = Role::kUser;
  } else if (role == "assistant") {
    message.role = Role::kAssistant;
  } else if (role == "tool_results") {
    message.role = Role::kToolResults;
  } else {
    return Err("unknown role '" + role + "'");
  }
  message.text = j.value("text", "");
  for (const auto& call : j.value("tool_calls", nlohmann::json::array())) {
    message.tool_calls.push_back(
        {call.value("id", ""), call.value("name", ""), call.value("arguments", "")});
  }
  for (const auto& result : j.value("results", nlohmann::json::array())) {
    message.tool_results.push_back(
        {result.value("call_id", ""), result.value("name", ""), result.value("content", "")});
  }
  return message;
}

Result<std::unique_ptr<SessionLog>, std::string> SessionLog::Create(const std::string& dir,
                                                                    const nlohmann::json& start) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Err("cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);  // conversations may hold private code
  const std::string id = NewSessionId();
  const std::string path = dir + "/" + id + ".jsonl";
  auto log = Reopen(path, id);
  if (!log) return log;
  nlohmann::json event = start;
  event["type"] = "session";
  event["id"] = id;
  (*log)->Append(event);
  return log;
}

Result<std::unique_ptr<SessionLog>, std::string> SessionLog::Reopen(const std::string& path,
                                                                    std::string id) {
  std::FILE* file = std::fopen(path.c_str(), "ae");
  if (file == nullptr) return Err("cannot write " + path + ": " + std::strerror(errno));
  ::fchmod(::fileno(file), 0600);
  return std::unique_ptr<SessionLog>(new SessionLog(std::move(id), path, file));
}

SessionLog::~SessionLog() { std::fclose(file_); }

void SessionLog::Append(const nlohmann::json& event) {
  nlohmann::json line = event;
  line["time"] = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
}

void SessionLog::AppendMessage(const Message& message) { Append(MessageToJson(message)); }

Result<LoadedSession, std::string> LoadSession(const std::string& dir, const std::string& id) {
  LoadedSession session;
  if (!id.empty()) {
    session.id = id;
    session.path = dir + "/" + id + ".jsonl";
  } else {
    std::filesystem::file_time_type newest{};
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".jsonl") continue;
      const auto time = entry.last_write_time(ec);
      if (session.path.empty() || time > newest) {
        newest = time;
        session.path = entry.path().string();
        session.id = entry.path().stem().string();
      }
    }
    if (session.path.empty()) return Err("no saved session in " + dir);
  }
  std::ifstream in(session.path);
  if (!in) return Err("no session '" + session.id + "' in " + dir);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      // A line cut by a crash can only be the last one: stop there.
      break;
    }
    if (j.value("type", "") != "message") continue;
    auto message = MessageFromJson(j);
    if (!message) return Err(session.path + ":" + std::to_string(number) + ": " + message.error());
    session.messages.push_back(std::move(*message));
  }
  AnswerOpenCalls(session.messages);
  return session;
}

}  // namespace ikigai::agent
