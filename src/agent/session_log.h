// Every session, appended as it happens to ~/.ikigai/sessions/<id>.jsonl:
// one JSON object per line (the session's start with its working
// directory, each message, tool calls and their results, usage). API keys
// are never written: nothing from the configuration is, beyond the
// provider's and the model's names.
//
// A crash must cost at most the line being written, never what follows:
// each line goes out in one write() on an O_APPEND descriptor (two writers
// interleave only at line ends); a log reopened after a crash is first cut
// back to its last whole line, so the next line does not join a torn one;
// and loading skips a line it cannot read (reporting file and line) rather
// than stopping there. Every field read is checked for its type.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
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
  // Appends to an existing session's file, cutting a torn last line off
  // first (repair_note() then says what was dropped).
  static Result<std::unique_ptr<SessionLog>, std::string> Reopen(const std::string& path,
                                                                 std::string id);
  ~SessionLog();

  void Append(const nlohmann::json& event);
  void AppendMessage(const providers::Message& message);

  const std::string& id() const { return id_; }
  const std::string& path() const { return path_; }
  const std::string& repair_note() const { return repair_note_; }

 private:
  SessionLog(std::string id, std::string path, int fd)
      : id_(std::move(id)), path_(std::move(path)), fd_(fd) {}
  std::string id_, path_, repair_note_;
  int fd_;
};

struct LoadedSession {
  std::string id;
  std::string path;
  std::string cwd;                           // where it started ("" in logs older than that field)
  std::vector<providers::Message> messages;  // from the last compaction on
  providers::Usage usage;                    // every request's, summed
  std::vector<std::string> skipped;          // "path:line: why" of each line left out
};

// The session `id`, or when `id` is empty the most recent one started in
// `cwd` (another project's conversation must not continue here, its tools
// now acting on this directory; nullopt: in any directory). Errors name what was not found. Lines
// that cannot be read are skipped and listed; tool calls left without
// results (the session ended while they ran) get CANCELLED ones, so the
// conversation can go on.
Result<LoadedSession, std::string> LoadSession(const std::string& dir, const std::string& id,
                                               const std::optional<std::string>& cwd = {});

// ~/.ikigai/sessions
std::string DefaultSessionDirectory();

nlohmann::json MessageToJson(const providers::Message& message);
Result<providers::Message, std::string> MessageFromJson(const nlohmann::json& j);

// A "usage" line: {"type": "usage", "input_tokens", "output_tokens",
// "cache_read_tokens", "cache_write_tokens"}; a field missing or of another
// type counts as 0.
nlohmann::json UsageToJson(const providers::Usage& usage);

}  // namespace ikigai::agent
