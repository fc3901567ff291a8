#include "repl/user_prompt.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <sstream>

namespace ikigai::repl {
namespace {

using hostapi::Question;
using hostapi::Reply;
using nlohmann::json;

// A TerminalUser over plain lines from a pipe, its display in a string.
class TerminalUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::pipe(input_), 0);
    ASSERT_EQ(::pipe2(wake_, O_NONBLOCK), 0);  // as signals.h's is
    ASSERT_EQ(::pipe(cancel_), 0);
    reader_ = MakePlainReader(input_[0], wake_[0]);
  }
  void TearDown() override {
    for (int fd : {input_[0], input_[1], wake_[0], wake_[1], cancel_[0], cancel_[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }
  void Type(const std::string& text) {
    ASSERT_EQ(::write(input_[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  std::optional<Reply> Ask(const Question& question) {
    TerminalUser user(*reader_, display_, [] { return nullptr; });
    return user.Elicit(question, cancel_[0]);
  }
  static Question WithOptions() {
    Question question;
    question.tool = "ask_user";
    question.message = "Which database?";
    question.options = {"Postgres", "SQLite"};
    return question;
  }

  int input_[2] = {-1, -1}, wake_[2] = {-1, -1}, cancel_[2] = {-1, -1};
  std::unique_ptr<LineReader> reader_;
  std::ostringstream out_;
  Display display_{out_, Style{}};
};

TEST_F(TerminalUserTest, TheQuestionAndNumberedOptionsShowAndANumberPicks) {
  Type("\n2\n");  // a blank line asks again
  auto reply = Ask(WithOptions());
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->action, Reply::Action::kAccept);
  EXPECT_EQ(reply->content, (json{{"answer", "SQLite"}, {"option", 2}}));
  const std::string shown = out_.str();
  EXPECT_NE(shown.find("ask_user asks:\nWhich database?\n  1. Postgres\n  2. SQLite\n"),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("Type an answer, or press Ctrl+C to decline."), std::string::npos);
}

TEST_F(TerminalUserTest, FreeTextIsTheAnswer) {
  Type("DuckDB, embedded\n");
  auto reply = Ask(WithOptions());
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->content, (json{{"answer", "DuckDB, embedded"}}));
}

// (Ctrl+C, which declines, is tested in the pseudo-terminal: repl_test.cc.)
TEST_F(TerminalUserTest, TheEndOfInputCancels) {
  ::close(input_[1]);
  input_[1] = -1;
  auto reply = Ask(WithOptions());
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->action, Reply::Action::kCancel);
}

TEST_F(TerminalUserTest, TheCallEndingTakesTheQuestionBack) {
  ASSERT_EQ(::write(cancel_[1], "x", 1), 1);  // nothing typed: the call ended
  auto reply = Ask(WithOptions());
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->action, Reply::Action::kCancel);
}

TEST_F(TerminalUserTest, AFormAsksEachFieldUntilItsAnswerFits) {
  Question question;
  question.tool = "deploy";
  question.message = "Deploy where?";
  question.schema = json::parse(R"({"type": "object", "properties": {
      "region": {"type": "string", "enum": ["eu", "us"]},
      "replicas": {"type": "integer", "description": "how many"},
      "dry_run": {"type": "boolean", "default": true},
      "note": {"type": "string"}},
    "required": ["region", "replicas"]})");
  // Fields come in name order: dry_run, note, region, replicas.
  Type("\n\n3\n2\nmany\n\n4\n");
  auto reply = Ask(question);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->action, Reply::Action::kAccept);
  EXPECT_EQ(reply->content, (json{{"region", "us"}, {"replicas", 4}, {"dry_run", true}}));
  const std::string shown = out_.str();
  EXPECT_NE(shown.find("choose one of the numbers shown (1 to 2)"), std::string::npos) << shown;
  EXPECT_NE(shown.find("type a whole number"), std::string::npos) << shown;
  EXPECT_NE(shown.find("This one needs an answer"), std::string::npos) << shown;
  EXPECT_NE(shown.find("replicas (a whole number): how many"), std::string::npos) << shown;
}

TEST_F(TerminalUserTest, ProgressIsALineWithoutASpinner) {
  TerminalUser user(*reader_, display_, [] { return nullptr; });
  user.Progress("build", "compiling 3/9");
  EXPECT_EQ(out_.str(), "build: compiling 3/9\n");
}

}  // namespace
}  // namespace ikigai::repl
