#include "base/visible_text.h"

#include <gtest/gtest.h>

namespace ikigai {
namespace {

TEST(VisibleText, PlainTextAndUnicodeAreUnchanged) {
  EXPECT_EQ(VisibleText("héllo wörld ✓ 日本", Layout::kKeep), "héllo wörld ✓ 日本");
  EXPECT_EQ(VisibleText("a\tb\nc", Layout::kKeep), "a\tb\nc");
}

TEST(VisibleText, TerminalSequencesAreShownNotObeyed) {
  // Clipboard write, window title, clear screen, a line rewritten.
  EXPECT_EQ(VisibleText("\x1b]52;c;ZXZpbA==\x07", Layout::kKeep), "\\x1b]52;c;ZXZpbA==\\x07");
  EXPECT_EQ(VisibleText("\x1b]0;pwned\x1b\\", Layout::kKeep), "\\x1b]0;pwned\\x1b\\");
  EXPECT_EQ(VisibleText("\x1b[2J", Layout::kKeep), "\\x1b[2J");
  EXPECT_EQ(VisibleText("rm -rf ~ #\x1b[2K\x1b[1G[tool] bash: ls", Layout::kOneLine),
            "rm -rf ~ #\\x1b[2K\\x1b[1G[tool] bash: ls");
}

TEST(VisibleText, EveryControlIsEscaped) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string shown = VisibleText(std::string(1, static_cast<char>(c)), Layout::kOneLine);
    EXPECT_EQ(shown.find_first_of(std::string("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
                                              "\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18"
                                              "\x19\x1a\x1b\x1c\x1d\x1e\x1f",
                                              32)),
              std::string::npos)
        << c;
  }
  EXPECT_EQ(VisibleText("\x7f", Layout::kKeep), "\\x7f");
  EXPECT_EQ(VisibleText("a\nb\tc\rd", Layout::kOneLine), "a\\nb\\tc\\rd");
}

TEST(VisibleText, C1ControlsAndInvalidBytesNeverPass) {
  EXPECT_EQ(VisibleText("\xc2\x9b"
                        "2J",
                        Layout::kKeep),
            "\\u009b2J");  // CSI, one code point
  EXPECT_EQ(VisibleText("\xc2\x85", Layout::kKeep), "\\u0085");
  EXPECT_EQ(VisibleText("\xc2\xa0", Layout::kKeep), "\xc2\xa0");  // U+00A0 is printable
  // A raw 0x9B byte is invalid UTF-8: replaced, never sent.
  EXPECT_EQ(VisibleText("\x9b"
                        "2J",
                        Layout::kKeep),
            "\xef\xbf\xbd"
            "2J");
}

TEST(VisibleText, CrLfIsALineEndAndALoneCrIsShown) {
  EXPECT_EQ(VisibleText("one\r\ntwo\r", Layout::kKeep), "one\ntwo\\r");
  EXPECT_EQ(VisibleText("50%\rdone", Layout::kKeep), "50%\\rdone");
}

TEST(VisibleStream, PiecesSplitAnywhereGiveTheSameText) {
  const std::string text = "ok \x1b[2J é ✓ \xc2\x9b x\r\ny\r";
  const std::string whole = VisibleText(text, Layout::kKeep);
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    for (std::size_t cut2 = cut; cut2 <= text.size(); ++cut2) {
      VisibleStream stream;
      std::string shown = stream.Feed(text.substr(0, cut));
      shown += stream.Feed(text.substr(cut, cut2 - cut));
      shown += stream.Feed(text.substr(cut2));
      shown += stream.Finish();
      EXPECT_EQ(shown, whole) << cut << " " << cut2;
    }
  }
}

TEST(VisibleLine, OneLineControlsShownCutAtACharacter) {
  EXPECT_EQ(VisibleLine("a\nb\tc\x1b[2J", 100), "a b c\\x1b[2J");
  // "é" is two bytes: room for 5 bytes before "..." would split the third.
  EXPECT_EQ(VisibleLine("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8), "\xc3\xa9\xc3\xa9...");
  EXPECT_EQ(VisibleLine("short", 5), "short");
}

}  // namespace
}  // namespace ikigai
