#include "spawning/environment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace ikigai::spawning {
namespace {

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST(EnvironmentTest, SecretNamesAreRecognized) {
  for (const char* name :
       {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "DB_PASSWORD", "PGPASSWORD", "MYSQL_PWD_PASSWD",
        "CLIENT_SECRET", "deploy_key", "ANTHROPIC_AUTH_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS"}) {
    EXPECT_TRUE(IsSecretName(name)) << name;
  }
  for (const char* name : {"PATH", "HOME", "LANG", "TERM", "EDITOR", "KEYBOARD", "SSH_AUTH_SOCK"}) {
    EXPECT_FALSE(IsSecretName(name)) << name;
  }
}

TEST(EnvironmentTest, SecretsAreDroppedUnlessPassedThrough) {
  ::setenv("IKIGAI_TEST_API_KEY", "sk-secret", 1);
  ::setenv("IKIGAI_TEST_TOKEN", "ghp-secret", 1);
  ::setenv("IKIGAI_TEST_PLAIN", "visible", 1);
  const auto env = ToolEnvironment({{"IKIGAI_TOOL_DEADLINE_MS", "30000"}}, {"IKIGAI_TEST_TOKEN"});
  EXPECT_FALSE(Has(env, "IKIGAI_TEST_API_KEY=sk-secret"));
  EXPECT_TRUE(Has(env, "IKIGAI_TEST_TOKEN=ghp-secret"));
  EXPECT_TRUE(Has(env, "IKIGAI_TEST_PLAIN=visible"));
  EXPECT_TRUE(Has(env, "IKIGAI_TOOL_DEADLINE_MS=30000"));
  for (const std::string& entry : env) EXPECT_EQ(entry.find("sk-secret"), std::string::npos);
  ::unsetenv("IKIGAI_TEST_API_KEY");
  ::unsetenv("IKIGAI_TEST_TOKEN");
  ::unsetenv("IKIGAI_TEST_PLAIN");
}

TEST(EnvironmentTest, AnOverrideReplacesTheHostsValue) {
  ::setenv("IKIGAI_TEST_PLAIN", "host", 1);
  const auto env = ToolEnvironment({{"IKIGAI_TEST_PLAIN", "tool"}}, {});
  EXPECT_TRUE(Has(env, "IKIGAI_TEST_PLAIN=tool"));
  EXPECT_FALSE(Has(env, "IKIGAI_TEST_PLAIN=host"));
  ::unsetenv("IKIGAI_TEST_PLAIN");
}

}  // namespace
}  // namespace ikigai::spawning
