#include "mcpclient/names.h"

#include <gtest/gtest.h>

namespace ikigai::mcpclient {
namespace {

TEST(McpNames, PlainNamesJoinWithDoubleUnderscores) {
  EXPECT_EQ(ToolNames({{"everything", "echo"}}), std::vector<std::string>{"mcp__everything__echo"});
}

TEST(McpNames, CharactersOutsideTheAlphabetBecomeUnderscores) {
  EXPECT_EQ(SafePart("my.server/x y-z_1"), "my_server_x_y-z_1");
  EXPECT_EQ(ToolNames({{"git hub", "list.repos"}})[0], "mcp__git_hub__list_repos");
}

TEST(McpNames, TooLongIsCutToSixtyFourWithAHashOfTheRawNames) {
  const std::string tool(80, 'a');
  const std::string name = ToolNames({{"srv", tool}})[0];
  EXPECT_EQ(name.size(), kMaxToolName);
  EXPECT_TRUE(name.starts_with("mcp__srv__aaaa"));
  EXPECT_TRUE(name.ends_with("_" + NameHash("srv", tool)));
  EXPECT_EQ(NameHash("srv", tool).size(), 12u);
  // Stable from one session to the next.
  EXPECT_EQ(ToolNames({{"srv", tool}})[0], name);
}

TEST(McpNames, NamesThatClashAfterMappingBothGetHashes) {
  const auto names = ToolNames({{"s", "a.b"}, {"s", "a_b"}, {"s", "c"}});
  EXPECT_NE(names[0], names[1]);
  EXPECT_EQ(names[0], "mcp__s__a_b_" + NameHash("s", "a.b"));
  EXPECT_EQ(names[1], "mcp__s__a_b_" + NameHash("s", "a_b"));
  EXPECT_EQ(names[2], "mcp__s__c");
}

TEST(McpNames, TheHashSeparatesServerFromTool) {
  EXPECT_NE(NameHash("ab", "c"), NameHash("a", "bc"));
}

}  // namespace
}  // namespace ikigai::mcpclient
