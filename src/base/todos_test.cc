#include "base/todos.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "testing/tool_runner.h"

namespace ikigai::todos {
namespace {

using nlohmann::json;

TEST(Todos, AListIsCheckedItemByItem) {
  auto list = ParseTodos(json::parse(R"([{"content": "a", "status": "pending"},
                                         {"content": "b", "status": "completed"}])"));
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list->size(), 2u);
  EXPECT_EQ(ParseTodos(json::object()).error(), "todos must be an array of {content, status}");
  EXPECT_EQ(ParseTodos(json::parse(R"([{"content": " ", "status": "pending"}])")).error(),
            "todos[0].content must be a non-empty string: what is to be done");
  EXPECT_EQ(ParseTodos(json::parse(R"([{"content": "a", "status": 1}])")).error(),
            "todos[0].status must be pending, in_progress or completed, got 1");
  EXPECT_FALSE(ParseTodos(json::array({json::object()})));
}

TEST(Todos, TheWatcherSeesEachChangeOnceAndTheModelGetsWhatIsOpen) {
  testing::TempDir dir;
  const std::string path = dir / "todos.json";
  PlanWatcher watcher(path);
  EXPECT_FALSE(watcher.Changed());  // no file: no plan, nothing new
  testing::WriteFile(path, R"({"todos": [{"content": "Fix\nit", "status": "in_progress"},
                                         {"content": "Test", "status": "completed"}]})");
  auto changed = watcher.Changed();
  ASSERT_TRUE(changed);
  EXPECT_EQ(ChecklistLines(*changed), (std::vector<std::string>{"[>] Fix it", "[x] Test"}));
  EXPECT_FALSE(watcher.Changed());
  EXPECT_NE(PlanForModel(*changed).find("[>] Fix it\n[x] Test\n"), std::string::npos);
  EXPECT_EQ(PlanForModel({{"Test", "completed"}}), "");  // nothing left to do
  testing::WriteFile(path, "not json");
  EXPECT_EQ(watcher.Changed(), std::vector<Todo>{});  // unreadable: no plan
  watcher.Forget();
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace ikigai::todos
