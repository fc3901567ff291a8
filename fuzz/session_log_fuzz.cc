// The session-log reader (src/agent/session_log.h): a log whose content is
// the input, loaded by id and as the most recent session of a directory,
// then reopened for appending (which cuts a torn last line). Every
// assistant turn with tool calls is followed by their results, and a
// loaded message survives being written and read again.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "agent/session_log.h"
#include "fuzz_support.h"

namespace agent = ikigai::agent;
using ikigai::providers::Role;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string dir = ikigai::fuzz::ScratchDirectory() + "/sessions";
  static const std::string path = dir + "/fuzz.jsonl";
  static const bool made = (::mkdir(dir.c_str(), 0700), true);
  (void)made;
  const std::string_view text = ikigai::fuzz::AsText(data, size);
  ikigai::fuzz::WriteFile(path, text);

  auto session = agent::LoadSession(dir, "fuzz");
  FUZZ_CHECK(session);
  const auto& messages = session->messages;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role == Role::kAssistant && !messages[i].tool_calls.empty()) {
      FUZZ_CHECK(i + 1 < messages.size() && messages[i + 1].role == Role::kToolResults);
    }
    auto again = agent::MessageFromJson(agent::MessageToJson(messages[i]));
    FUZZ_CHECK(again);
    FUZZ_CHECK(again->role == messages[i].role);
    FUZZ_CHECK(again->role == Role::kToolResults || again->text == messages[i].text);
    FUZZ_CHECK(again->tool_calls.size() == messages[i].tool_calls.size());
    FUZZ_CHECK(again->tool_results.size() == messages[i].tool_results.size());
  }

  // The most recent session of any directory, and of the one it names.
  FUZZ_CHECK(agent::LoadSession(dir, ""));
  (void)agent::LoadSession(dir, "", session->cwd);

  // Reopening keeps whole lines only.
  {
    auto log = agent::SessionLog::Reopen(path, "fuzz");
    FUZZ_CHECK(log);
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream kept;
  kept << in.rdbuf();
  const std::string after = kept.str();
  FUZZ_CHECK(text.starts_with(after));
  FUZZ_CHECK(after.empty() || after.back() == '\n');
  return 0;
}
