#include "agent/session_log.h"

#include <fcntl.h>
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
          protocol::wrapper_code::kCancelled,
          "The session ended before this call finished; it may have run in part.");
      results.tool_results.push_back({call.id, call.name, wrapped.dump()});
    }
    messages.insert(messages.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(results));
  }
}

// A log whose last line was cut (a crash, a full disk) is cut back to its
// last whole line, so that the next line starts on a line of its own.
// Says what was dropped, or "".
std::string CutTornLine(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size == 0) return "";
  char last = '\n';
  if (::pread(fd, &last, 1, st.st_size - 1) != 1 || last == '\n') return "";
  // Look back in blocks for the newline before the torn part.
  off_t end = st.st_size;
  off_t keep = 0;
  char block[4096];
  while (end > 0 && keep == 0) {
    const off_t start = end > static_cast<off_t>(sizeof block) ? end - sizeof block : 0;
    const ssize_t n = ::pread(fd, block, static_cast<std::size_t>(end - start), start);
    if (n <= 0) return "";
    for (ssize_t i = n - 1; i >= 0; --i) {
      if (block[i] == '\n') {
        keep = start + i + 1;
        break;
      }
    }
    end = start;
  }
  if (::ftruncate(fd, keep) != 0) {
    return "the last line of " + path + " is incomplete and could not be cut off (" +
           std::strerror(errno) + ")";
  }
  return "the last line of " + path + " was incomplete (a crash?); its " +
         std::to_string(st.st_size - keep) + " bytes were dropped";
}

// The working directory a session was started in: the "cwd" of its first
// line, or "" (an older log, or an unreadable one).
// What the first line of a log says: where it was started, and whether a
// subagent wrote it (never the session --resume continues by itself).
struct LogHeader {
  std::string cwd;
  bool subagent = false;
};

LogHeader ReadHeader(const std::string& path) {
  std::ifstream in(path);
  std::string first;
  if (!std::getline(in, first)) return {};
  const auto j = nlohmann::json::parse(first, nullptr, false);
  if (!j.is_object()) return {};
  const auto cwd = j.find("cwd");
  const auto subagent = j.find("subagent");
  return {cwd != j.end() && cwd->is_string() ? cwd->get<std::string>() : "",
          subagent != j.end() && subagent->is_boolean() && subagent->get<bool>()};
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
  if (!message.replay.is_null()) j["replay"] = message.replay;
  return j;
}

nlohmann::json UsageToJson(const providers::Usage& usage) {
  return {{"type", "usage"},
          {"input_tokens", usage.input_tokens},
          {"output_tokens", usage.output_tokens},
          {"cache_read_tokens", usage.cache_read_tokens},
          {"cache_write_tokens", usage.cache_write_tokens}};
}

Result<Message, std::string> MessageFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Err(std::string("a message must be an object"));
  std::string problem;
  // The string at `key` of `object`; "" when absent; a problem when not a string.
  const auto text_at = [&problem](const nlohmann::json& object, const char* key) -> std::string {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return "";
    if (it->is_string()) return it->get<std::string>();
    if (problem.empty()) problem = "'" + std::string(key) + "' is not a string";
    return "";
  };
  // The objects of the array at `key`; a problem when not an array of objects.
  const auto objects_at = [&problem](const nlohmann::json& object, const char* key) {
    std::vector<const nlohmann::json*> items;
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return items;
    if (!it->is_array()) {
      if (problem.empty()) problem = "'" + std::string(key) + "' is not an array";
      return items;
    }
    for (const auto& item : *it) {
      if (!item.is_object()) {
        if (problem.empty()) problem = "an item of '" + std::string(key) + "' is not an object";
        continue;
      }
      items.push_back(&item);
    }
    return items;
  };
  Message message;
  const std::string role = text_at(j, "role");
  if (role == "user") {
    message.role = Role::kUser;
  } else if (role == "assistant") {
    message.role = Role::kAssistant;
  } else if (role == "tool_results") {
    message.role = Role::kToolResults;
  } else if (problem.empty()) {
    problem = "unknown role '" + role + "'";
  }
  // Only the fields of the message's role (providers/conversation.h), the
  // ones MessageToJson writes for it: a user line's "tool_calls" or an
  // assistant line's "results" (never written by ikigai) are not read.
  if (message.role != Role::kToolResults) message.text = text_at(j, "text");
  if (message.role == Role::kAssistant) {
    for (const nlohmann::json* call : objects_at(j, "tool_calls")) {
      message.tool_calls.push_back(
          {text_at(*call, "id"), text_at(*call, "name"), text_at(*call, "arguments")});
    }
  }
  if (message.role == Role::kToolResults) {
    for (const nlohmann::json* result : objects_at(j, "results")) {
      message.tool_results.push_back(
          {text_at(*result, "call_id"), text_at(*result, "name"), text_at(*result, "content")});
    }
  }
  if (auto replay = j.find("replay"); replay != j.end() && !replay->is_null()) {
    if (replay->is_object()) {
      message.replay = *replay;
    } else if (problem.empty()) {
      problem = "'replay' is not an object";
    }
  }
  if (!problem.empty()) return Err(std::move(problem));
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
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Err("cannot write " + path + ": " + std::strerror(errno));
  ::fchmod(fd, 0600);
  std::unique_ptr<SessionLog> log(new SessionLog(std::move(id), path, fd));
  log->repair_note_ = CutTornLine(fd, path);
  return log;
}

SessionLog::~SessionLog() { ::close(fd_); }

void SessionLog::Append(const nlohmann::json& event) {
  nlohmann::json line = event;
  line["time"] = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // One write: O_APPEND puts it whole at the end, after any other writer's.
  // A short write (a full disk) leaves a torn line, which the next Reopen
  // cuts off; the conversation goes on in memory either way.
  ssize_t written;
  do {
    written = ::write(fd_, text.data(), text.size());
  } while (written < 0 && errno == EINTR);
}

void SessionLog::AppendMessage(const Message& message) { Append(MessageToJson(message)); }

Result<LoadedSession, std::string> LoadSession(const std::string& dir, const std::string& id,
                                               const std::optional<std::string>& cwd) {
  LoadedSession session;
  if (!id.empty()) {
    session.id = id;
    session.path = dir + "/" + id + ".jsonl";
  } else {
    std::filesystem::file_time_type newest{};
    std::error_code ec;
    bool any = false;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".jsonl") continue;
      any = true;
      const LogHeader header = ReadHeader(entry.path().string());
      if (header.subagent || (cwd && header.cwd != *cwd)) continue;
      const auto time = entry.last_write_time(ec);
      if (session.path.empty() || time > newest) {
        newest = time;
        session.path = entry.path().string();
        session.id = entry.path().stem().string();
      }
    }
    if (session.path.empty()) {
      return Err(any && cwd
                     ? "no session was started in " + *cwd +
                           "; ikigai --resume ID resumes another (the ids are the file names in " +
                           dir + ")"
                     : "no saved session in " + dir);
    }
  }
  std::ifstream in(session.path);
  if (!in) return Err("no session '" + session.id + "' in " + dir);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const auto skip = [&](const std::string& why) {
      session.skipped.push_back(session.path + ":" + std::to_string(number) + ": " + why);
    };
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      skip(j.is_discarded() ? "not JSON (cut by a crash?)" : "not a JSON object");
      continue;
    }
    const auto type = j.find("type");
    if (type == j.end() || !type->is_string()) {
      skip("no type");
      continue;
    }
    if (*type == "session") {
      const auto start = j.find("cwd");
      if (start != j.end() && start->is_string()) session.cwd = start->get<std::string>();
      continue;
    }
    if (*type == "usage") {
      session.usage += providers::UsageFromJson(j);
      continue;
    }
    if (*type == "compaction") {
      // The conversation went on from here: what was before is the summary.
      auto messages = j.find("messages");
      if (messages == j.end() || !messages->is_array()) {
        skip("a compaction without its messages");
        continue;
      }
      std::vector<Message> compacted;
      std::string problem;
      for (const auto& item : *messages) {
        auto message = MessageFromJson(item);
        if (!message) {
          problem = message.error();
          break;
        }
        compacted.push_back(std::move(*message));
      }
      if (!problem.empty()) {
        skip("a compaction whose messages cannot be read: " + problem);
        continue;
      }
      session.messages = std::move(compacted);
      continue;
    }
    if (*type != "message") continue;
    auto message = MessageFromJson(j);
    if (!message) {
      skip(message.error());
      continue;
    }
    session.messages.push_back(std::move(*message));
  }
  AnswerOpenCalls(session.messages);
  return session;
}

}  // namespace ikigai::agent
