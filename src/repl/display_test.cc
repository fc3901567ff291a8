#include "repl/display.h"

#include <pty.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace ikigai::repl {
namespace {

using namespace std::chrono_literals;

providers::ToolCall Call(const std::string& name, const std::string& arguments) {
  return {"call_1", name, arguments};
}

TEST(DisplayLines, ToolLinesArePlainWithoutColour) {
  const Style plain;
  EXPECT_EQ(ToolStartLine(Call("bash", R"({"command": "ls -la"})"), plain), "[tool] bash: ls -la");
  EXPECT_EQ(ToolEndLine(Call("bash", "{}"),
                        {{"tool_success", true}, {"result", {{"output", ""}, {"exit_code", 2}}}},
                        std::chrono::microseconds(12500), plain),
            "[tool] bash -> exit 2 (12 ms)");
  EXPECT_EQ(
      ToolEndLine(Call("grep", "{}"), {{"tool_success", false}, {"error_code", "TOOL_TIMEOUT"}},
                  std::chrono::microseconds(0), plain),
      "[tool] grep -> TOOL_TIMEOUT (0 ms)");
}

TEST(DisplayLines, OutcomesAreColouredByKind) {
  Style color;
  color.color = true;
  EXPECT_EQ(ToolStartLine(Call("bash", R"({"command": "ls"})"), color),
            "\033[2m[tool]\033[0m \033[1mbash\033[0m: ls");
  const auto end = [&](const protocol::WrappedJson& wrapped) {
    return ToolEndLine(Call("x", "{}"), wrapped, std::chrono::microseconds(1000), color);
  };
  EXPECT_NE(end({{"tool_success", true}, {"result", {{"ok", 1}}}}).find("\033[32mok\033[0m"),
            std::string::npos);
  EXPECT_NE(
      end({{"tool_success", true}, {"result", {{"exit_code", 1}}}}).find("\033[33mexit 1\033[0m"),
      std::string::npos);
  EXPECT_NE(end({{"tool_success", true}, {"result", {{"truncated", true}}}})
                .find("\033[33mok, truncated\033[0m"),
            std::string::npos);
  EXPECT_NE(end({{"tool_success", true}, {"result", {{"error_code", "FILE_NOT_FOUND"}}}})
                .find("\033[31mFILE_NOT_FOUND\033[0m"),
            std::string::npos);
  EXPECT_NE(end({{"tool_success", false}, {"error_code", "CANCELLED"}}).find("\033[31mCANCELLED"),
            std::string::npos);
}

TEST(DisplayLines, ElapsedTime) {
  EXPECT_EQ(FormatElapsed(0ms), "0.0s");
  EXPECT_EQ(FormatElapsed(1250ms), "1.2s");
  EXPECT_EQ(FormatElapsed(45000ms), "45s");
  EXPECT_EQ(FormatElapsed(125000ms), "2m05s");
}

TEST(DisplayOutput, ToolLinesStartOnTheirOwnLine) {
  std::ostringstream out;
  {
    Display display(out, Style{});
    display.Text("Let me look");
    display.ToolStart(Call("bash", R"({"command": "ls"})"));
    display.ToolEnd(Call("bash", "{}"), {{"tool_success", true}, {"result", {{"exit_code", 0}}}},
                    std::chrono::microseconds(3000));
    display.Text("Done.");
    display.EndLine();
    display.EndLine();         // once only
    display.Spin("thinking");  // not a terminal: nothing
    display.Debug("Debug: tool 'foo' schema failed (timeout)");
  }
  EXPECT_EQ(out.str(),
            "Let me look\n"
            "[tool] bash: ls\n"
            "[tool] bash -> ok (3 ms)\n"
            "Done.\n"
            "Debug: tool 'foo' schema failed (timeout)\n");
}

// A stream the spinner thread and the test can share.
class SharedBuffer : public std::streambuf {
 public:
  std::string str() const {
    std::lock_guard lock(mutex_);
    return text_;
  }

 protected:
  int overflow(int c) override {
    std::lock_guard lock(mutex_);
    if (c != EOF) text_ += static_cast<char>(c);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard lock(mutex_);
    text_.append(s, static_cast<std::size_t>(n));
    return n;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

TEST(DisplayOutput, TheSpinnerShowsElapsedTimeAndIsErasedBeforeOutput) {
  SharedBuffer buffer;
  std::ostream out(&buffer);
  Style style;
  style.animate = true;
  Display display(out, style);
  display.Spin("thinking");
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (buffer.str().find("thinking") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  const std::string spinning = buffer.str();
  ASSERT_NE(spinning.find("thinking "), std::string::npos) << spinning;
  EXPECT_TRUE(spinning.starts_with("\r")) << spinning;
  EXPECT_NE(spinning.find("s\033[K"), std::string::npos) << "elapsed seconds: " << spinning;
  display.Text("Answer");
  const std::string after = buffer.str();
  EXPECT_TRUE(after.ends_with("\r\033[KAnswer")) << after;
  // Mid-line the spinner never draws over the answer.
  display.Spin("thinking");
  std::this_thread::sleep_for(600ms);
  display.StopSpinner();
  EXPECT_EQ(buffer.str(), after);
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DisplayStyle, ColourOnATerminalUnlessNoColorOrDumb) {
  int master = -1, slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  {
    ScopedEnv term("TERM", "xterm");
    ScopedEnv no_color("NO_COLOR", nullptr);
    EXPECT_TRUE(Style::Detect(slave).color);
    EXPECT_TRUE(Style::Detect(slave).animate);
    {
      ScopedEnv set("NO_COLOR", "1");
      EXPECT_FALSE(Style::Detect(slave).color);
      EXPECT_TRUE(Style::Detect(slave).animate) << "NO_COLOR is about colour only";
    }
    {
      ScopedEnv empty("NO_COLOR", "");
      EXPECT_TRUE(Style::Detect(slave).color) << "an empty NO_COLOR is unset";
    }
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    EXPECT_FALSE(Style::Detect(fds[1]).color) << "not a terminal";
    EXPECT_FALSE(Style::Detect(fds[1]).animate);
    ::close(fds[0]);
    ::close(fds[1]);
  }
  {
    ScopedEnv term("TERM", "dumb");
    EXPECT_FALSE(Style::Detect(slave).color);
    EXPECT_FALSE(Style::Detect(slave).animate);
  }
  ::close(master);
  ::close(slave);
}

}  // namespace
}  // namespace ikigai::repl
