#include "session/project_hooks.h"

#include "base/bounded_file.h"
#include "protocol/parse_json.h"

namespace ikigai::session {

nlohmann::json ProjectHooks(const std::string& dir) {
  auto file =
      ReadBoundedFile(dir + "/.ikigai/config.json", {.max_bytes = 1024 * 1024, .confine_to = dir});
  if (!file || !file->exists || file->truncated) return nullptr;
  auto json = protocol::ParseJson(file->text);
  if (!json || !json->is_object()) return nullptr;
  auto hooks = json->find("hooks");
  return hooks == json->end() ? nullptr : *hooks;
}

}  // namespace ikigai::session
