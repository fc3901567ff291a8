#include "toolcmd/tool_commands.h"

#include <nlohmann/json.hpp>

#include "executor/executor.h"
#include "protocol/wrapper.h"

namespace ikigai::toolcmd {

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
    const executor::Executor executor =
        session::ExecutorFor(host, [] { return permissions::Mode::kAuto; });
    auto results = executor.Run(*host.registry, {{"cli", name, std::move(parsed)}});
    wrapped = std::move(results.front().wrapped);
  }
  out << wrapped.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return wrapped.value("tool_success", false) ? 0 : 1;
}

}  // namespace ikigai::toolcmd
