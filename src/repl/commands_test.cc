#include "repl/commands.h"

#include <gtest/gtest.h>

namespace ikigai::repl {
namespace {

TEST(Commands, ParsesNameAndTrimmedArgument) {
  auto tool = ParseCommandLine("/tool bash");
  ASSERT_TRUE(tool);
  EXPECT_EQ(tool->name, "tool");
  EXPECT_EQ(tool->argument, "bash");
  auto model = ParseCommandLine("  /model   gpt-4.1  \n");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->name, "model");
  EXPECT_EQ(model->argument, "gpt-4.1");
  auto bare = ParseCommandLine("/refresh");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->name, "refresh");
  EXPECT_EQ(bare->argument, "");
}

TEST(Commands, MessagesAreNotCommands) {
  EXPECT_FALSE(ParseCommandLine("fix the /tool command"));
  EXPECT_FALSE(ParseCommandLine("/etc/hosts looks wrong"));
  EXPECT_FALSE(ParseCommandLine("/"));
  EXPECT_FALSE(ParseCommandLine("/ x"));
  EXPECT_FALSE(ParseCommandLine(""));
}

TEST(Commands, TheTableHasEveryCommandOfTheSpecification) {
  for (const char* name :
       {"tool", "refresh", "help", "clear", "model", "permissions", "status", "quit"}) {
    const Command* command = FindCommand(name);
    ASSERT_NE(command, nullptr) << name;
    EXPECT_EQ(command->name, name);
    EXPECT_TRUE(command->usage.starts_with(std::string("/") + name)) << command->usage;
  }
  EXPECT_EQ(FindCommand("nope"), nullptr);
  EXPECT_EQ(FindCommand("/tool"), nullptr) << "names are without the slash";
  EXPECT_EQ(FindCommand("tool")->arguments, Arguments::kOptional);
  EXPECT_EQ(FindCommand("refresh")->arguments, Arguments::kNone);
}

TEST(Commands, HelpListsCommandsAndKeys) {
  const std::string help = HelpText();
  for (const auto& command : Commands()) {
    EXPECT_NE(help.find("  " + std::string(command.usage) + " "), std::string::npos)
        << command.usage;
  }
  for (const char* key : {"Alt+Enter", "\\", "Ctrl+C", "Ctrl+D", "~/.ikigai/history"}) {
    EXPECT_NE(help.find(key), std::string::npos) << key;
  }
}

TEST(Commands, UnknownCommandPointsToHelp) {
  EXPECT_EQ(UnknownCommandText("foo"), "Unknown command: /foo. Type /help to see the commands.");
}

}  // namespace
}  // namespace ikigai::repl
