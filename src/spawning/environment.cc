#include "spawning/environment.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace ikigai::spawning {

bool IsSecretName(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view word : {"API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "SECRET", "TOKEN",
                                "PASSWORD", "PASSWD", "CREDENTIAL"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  return upper.ends_with("_KEY");
}

bool IsProviderKeyName(std::string_view name) {
  for (std::string_view key :
       {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"}) {
    if (name == key) return true;
  }
  return false;
}

std::vector<std::string> ToolEnvironment(
    const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::vector<std::string>& passthrough) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view var(*entry);
    const std::string_view name = var.substr(0, var.find('='));
    if (IsSecretName(name) &&
        std::find(passthrough.begin(), passthrough.end(), name) == passthrough.end()) {
      continue;
    }
    const bool overridden = std::any_of(overrides.begin(), overrides.end(),
                                        [name](const auto& o) { return o.first == name; });
    if (!overridden) env.emplace_back(var);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
}

}  // namespace ikigai::spawning
