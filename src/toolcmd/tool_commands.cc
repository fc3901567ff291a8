#include "toolcmd/tool_commands.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "executor/executor.h"
#include "hostapi/user_requests.h"
#include "protocol/wrapper.h"
#include "session/agent_setup.h"
#include "subagents/subagent_service.h"

namespace ikigai::toolcmd {
namespace {

// A file a tool saved in the session's scratch directory (the bash tool's
// full output) would go with the directory when this command ends: moved
// to the temporary directory, where the user can read it, and the path in
// the answer changed to match.
void KeepSavedOutput(protocol::WrappedJson& wrapped) {
  const char* session = std::getenv("IKIGAI_SESSION_DIR");
  if (session == nullptr || *session != '/') return;
  auto result = wrapped.find("result");
  if (result == wrapped.end() || !result->is_object()) return;
  auto path = result->find("full_output_path");
  if (path == result->end() || !path->is_string()) return;
  const std::filesystem::path saved = path->get<std::string>();
  if (!saved.string().starts_with(std::string(session) + "/")) return;
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path kept =
      std::filesystem::path(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") / saved.filename();
  std::error_code error;
  std::filesystem::rename(saved, kept, error);
  if (error) {  // another file system: copy instead
    error.clear();
    std::filesystem::copy_file(saved, kept, std::filesystem::copy_options::overwrite_existing,
                               error);
  }
  if (!error) *path = kept.string();
}

}  // namespace

int CallTool(const session::HostContext& host, const std::string& name,
             const std::string& arguments, std::ostream& out) {
  protocol::WrappedJson wrapped;
  nlohmann::json parsed = nlohmann::json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    wrapped = protocol::WrapFailure(
        protocol::wrapper_code::kInvalidParams,
        "The arguments are not valid JSON. Pass one JSON object, e.g. '{\"command\": \"ls\"}'.");
  } else {
    // The user's own action: confined only with --sandbox (host.sandbox),
    // then as if in auto mode: asked nothing, each call in its profile.
    // The task tool's subagent: the configured provider and model, the
    // configured mode (the call itself runs as the user's action).
    auto subagent_service = std::make_shared<subagents::SubagentService>([&host] {
      auto settings = session::ProviderSettingsFor(host.config.agent, {});
      const std::string provider = settings ? settings->kind : "";
      return session::SubagentSettingsFor(
          host, provider, session::ModelFor(host.config.agent, {}, provider), host.mode);
    });
    // Nobody answers a tool's question here: NO_USER.
    const executor::Executor executor = session::ExecutorFor(
        host, [] { return permissions::Mode::kAuto; },
        std::make_shared<hostapi::HostMethods>(std::make_shared<hostapi::NoUser>(std::cerr),
                                               subagent_service));
    auto results = executor.Run(*host.registry, {{"cli", name, std::move(parsed)}});
    wrapped = std::move(results.front().wrapped);
    KeepSavedOutput(wrapped);
  }
  out << wrapped.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return wrapped.value("tool_success", false) ? 0 : 1;
}

}  // namespace ikigai::toolcmd
