#include "session/agent_setup.h"

#include <gtest/gtest.h>

namespace ikigai::session {
namespace {

// Which provider runs when nothing names one: whichever has a key, Anthropic
// first, then OpenAI (a base URL alone means a local server), then Gemini.
TEST(ProviderSettingsTest, TheKeyThatIsSetChoosesTheProvider) {
  const auto kind = [](config::AgentConfig agent) {
    auto settings = ProviderSettingsFor(agent, {});
    EXPECT_TRUE(settings) << settings.error();
    return settings ? settings->kind : "";
  };
  config::AgentConfig agent;
  EXPECT_EQ(kind(agent), "anthropic");
  agent.gemini_api_key = "g";
  EXPECT_EQ(kind(agent), "gemini");
  agent.openai_base_url = "http://127.0.0.1:9/v1";
  EXPECT_EQ(kind(agent), "openai");
  agent.anthropic_api_key = "a";
  EXPECT_EQ(kind(agent), "anthropic");
}

TEST(ProviderSettingsTest, GeminiGetsItsKeyUrlAndDefaultModel) {
  config::AgentConfig agent;
  agent.anthropic_api_key = "a";
  agent.gemini_api_key = "g";
  auto settings = ProviderSettingsFor(agent, {"gemini", ""});
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings->kind, "gemini");
  EXPECT_EQ(settings->api_key, "g");
  EXPECT_EQ(settings->base_url, "https://generativelanguage.googleapis.com");
  EXPECT_EQ(ModelFor(agent, {}, "gemini"), "gemini-2.5-flash");
  EXPECT_EQ(ModelFor(agent, {"", "gemini-3-pro-preview"}, "gemini"), "gemini-3-pro-preview");

  auto unknown = ProviderSettingsFor(agent, {"mistral", ""});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(), "--provider mistral: must be openai, anthropic or gemini");
  EXPECT_NE(MissingKeyMessage("gemini").find("Set GEMINI_API_KEY"), std::string::npos);
  EXPECT_NE(MissingKeyMessage("anthropic").find("GEMINI_API_KEY with --provider gemini"),
            std::string::npos);
}

}  // namespace
}  // namespace ikigai::session
