#include "providers/provider.h"

#include "providers/anthropic_provider.h"
#include "providers/gemini_provider.h"
#include "providers/openai_provider.h"

namespace ikigai::providers {

std::unique_ptr<Provider> MakeProvider(const ProviderSettings& settings) {
  if (settings.kind == "openai") return std::make_unique<OpenAiProvider>(settings);
  if (settings.kind == "anthropic") return std::make_unique<AnthropicProvider>(settings);
  if (settings.kind == "gemini") return std::make_unique<GeminiProvider>(settings);
  return nullptr;
}

}  // namespace ikigai::providers
