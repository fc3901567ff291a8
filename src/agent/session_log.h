// Every session, appended as it happens to ~/.ikigai/sessions/<id>.jsonl:
// one JSON object per line (the session's start, each message, tool calls
// and their results, usage), flushed line by line so a crash loses at most
// the line being written. API keys are never written: nothing from the
// configuration is, beyond the provider's and the model's names.
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "providers/conversation.h"

namespace ikigai::agent {

class SessionLog {
 public:
  // A new session in `dir` (created if missing), with a fresh id.
  static Result<std::unique_ptr<SessionLog>, std::string> Create(const std::string& dir,
                                                                 const nlohmann::json& start);
  // Appends to an existing session's file.
  static Result<std::unique_ptr<SessionLog>, std::string> Reopen(const std::string& path,
                                                                 std::string id);
  ~SessionLog();

  void Append(const nlohmann::json& event);
  void AppendMessage(const providers::Message& message);

  const std::string& id() const { return id_; }
  const std::string& path() const { return path_; }

 private:
  SessionLog(std::string id, std::string path, std::FILE* file)
      : id_(std::move(id)), path_(std::move(path)), file_(file) {}
  std::string id_, path_;
  std::FILE* file_;
};

struct LoadedSession {
  std::string id;
  std::string path;
  std::vector<providers::Message> messages;
};

// The session `id`, or the most recent one when `id` is empty. Errors name
// what was not found. A line cut by a crash ends the file; tool calls left
// without results (the session ended while they ran) get CANCELLED ones, so
// the conversation can go on.
Result<LoadedSession, std::string> LoadSession(const std::string& dir, const std::string& id);

// ~/.ikigai/sessions
std::string DefaultSessionDirectory();

nlohmann::json MessageToJson(const providers::Message& message);
Result<providers::Message, std::string> MessageFromJson(const nlohmann::json& j);

}  // namespace ikigai::agent
