#include "registry/registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace ikigai::registry {
namespace {

Tool MakeTool(std::string name, std::string path = "") {
  Tool tool;
  tool.name = std::move(name);
  tool.path = path.empty() ? "/tools/" + tool.name + "-tool" : std::move(path);
  tool.source = Source::kSystem;
  tool.schema.name = tool.name;
  return tool;
}

TEST(RegistryTest, EmptyByDefault) {
  Registry registry;
  EXPECT_TRUE(registry.tools().empty());
  EXPECT_TRUE(registry.failures().empty());
  EXPECT_EQ(registry.Find("bash"), nullptr);
}

TEST(RegistryTest, ToolsAndFailuresAreSortedByName) {
  Registry registry({MakeTool("grep"), MakeTool("bash"), MakeTool("file_read"), MakeTool("glob")},
                    {{"zeta", "/z-tool", "timeout"}, {"alpha", "/a-tool", "exit code 3"}});
  std::vector<std::string> names;
  for (const Tool& tool : registry.tools()) names.push_back(tool.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bash", "file_read", "glob", "grep"}));
  ASSERT_EQ(registry.failures().size(), 2u);
  EXPECT_EQ(registry.failures()[0].name, "alpha");
  EXPECT_EQ(registry.failures()[1].reason, "timeout");
}

TEST(RegistryTest, FindByName) {
  Registry registry({MakeTool("grep"), MakeTool("bash"), MakeTool("file_read")}, {});
  for (const char* name : {"bash", "file_read", "grep"}) {
    const Tool* tool = registry.Find(name);
    ASSERT_NE(tool, nullptr) << name;
    EXPECT_EQ(tool->name, name);
    EXPECT_EQ(tool->path, std::string("/tools/") + name + "-tool");
  }
  for (const char* name : {"", "a", "bas", "bashx", "file", "zzz"}) {
    EXPECT_EQ(registry.Find(name), nullptr) << name;
  }
}

TEST(RegistryTest, HolderStartsEmpty) {
  RegistryHolder holder;
  ASSERT_NE(holder.Get(), nullptr);
  EXPECT_TRUE(holder.Get()->tools().empty());
  holder.Set(nullptr);  // never leaves readers without a registry
  ASSERT_NE(holder.Get(), nullptr);
}

TEST(RegistryTest, SnapshotSurvivesASwap) {
  RegistryHolder holder;
  holder.Set(std::make_shared<Registry>(std::vector<Tool>{MakeTool("old")},
                                        std::vector<DiscoveryFailure>{}));
  std::shared_ptr<const Registry> in_use = holder.Get();
  const Tool* tool = in_use->Find("old");
  holder.Set(std::make_shared<Registry>(std::vector<Tool>{MakeTool("new")},
                                        std::vector<DiscoveryFailure>{}));
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->path, "/tools/old-tool");  // still valid: the snapshot is alive
  EXPECT_EQ(holder.Get()->Find("old"), nullptr);
  EXPECT_NE(holder.Get()->Find("new"), nullptr);
}

TEST(RegistryTest, HolderSwapsWhileAnotherThreadReads) {
  // Every registry has one tool whose path names its generation; a reader
  // must always see a whole registry, never a torn or freed one.
  RegistryHolder holder;
  auto make = [](int generation) {
    return std::make_shared<Registry>(
        std::vector<Tool>{MakeTool("t", "/gen/" + std::to_string(generation))},
        std::vector<DiscoveryFailure>{});
  };
  holder.Set(make(0));
  std::atomic<bool> done{false};
  std::atomic<long> reads{0};
  std::atomic<bool> consistent{true};
  std::thread reader([&] {
    int last = 0;
    while (!done.load()) {
      auto snapshot = holder.Get();
      const Tool* tool = snapshot->Find("t");
      if (tool == nullptr || !tool->path.starts_with("/gen/")) {
        consistent = false;
        break;
      }
      const int generation = std::stoi(tool->path.substr(5));
      if (generation < last) consistent = false;  // swaps are seen in order
      last = generation;
      ++reads;
    }
  });
  constexpr int kGenerations = 2000;
  for (int generation = 1; generation <= kGenerations; ++generation) holder.Set(make(generation));
  while (reads.load() < 100 && consistent.load()) std::this_thread::yield();
  done = true;
  reader.join();
  EXPECT_TRUE(consistent.load());
  EXPECT_EQ(holder.Get()->Find("t")->path, "/gen/" + std::to_string(kGenerations));
}

}  // namespace
}  // namespace ikigai::registry
