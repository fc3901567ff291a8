// The environment a tool process gets: the host's, without its secrets.
//
// The host holds API keys; a tool (and the model driving it) must not see
// them: `env` run by the bash tool would otherwise print ANTHROPIC_API_KEY
// into the conversation, the provider's servers and the session log. A
// variable is a secret when its name (any case) contains API_KEY,
// ACCESS_KEY, PRIVATE_KEY, SECRET, TOKEN, PASSWORD, PASSWD or CREDENTIAL,
// or ends in _KEY. `tools.env_passthrough` names the ones a user wants to
// hand to tools anyway.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ikigai::spawning {

bool IsSecretName(std::string_view name);

// The variables that hold the host's own provider keys: no tool gets them
// by asking for them in its schema ("env").
bool IsProviderKeyName(std::string_view name);

// The host's environment without secrets (except those named in
// `passthrough`), then `overrides` set.
std::vector<std::string> ToolEnvironment(
    const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::vector<std::string>& passthrough);

}  // namespace ikigai::spawning
