#include "web_fetch/charset.h"

#include <gtest/gtest.h>

namespace ikigai::web_fetch {
namespace {

TEST(Charset, ReadsTheContentTypeParameter) {
  EXPECT_EQ(CharsetFromContentType("text/html; charset=ISO-8859-1"), "iso-8859-1");
  EXPECT_EQ(CharsetFromContentType("text/html;charset=\"Shift_JIS\""), "shift_jis");
  EXPECT_EQ(CharsetFromContentType("text/html"), "");
  EXPECT_EQ(CharsetFromContentType(""), "");
}

TEST(Charset, ReadsBothMetaForms) {
  EXPECT_EQ(CharsetFromHtmlMeta("<html><head><meta charset=\"windows-1252\"><title>"),
            "windows-1252");
  EXPECT_EQ(CharsetFromHtmlMeta("<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; "
                                "charset=EUC-JP\">"),
            "euc-jp");
  EXPECT_EQ(CharsetFromHtmlMeta("<meta name=viewport content=\"width=device-width\"><p>hi"), "");
  // Only the start of the document counts.
  EXPECT_EQ(CharsetFromHtmlMeta(std::string(5000, ' ') + "<meta charset=latin1>"), "");
}

TEST(Charset, Latin1IsReadAsWindows1252LikeBrowsers) {
  // "café" then a right single quote (0x92 in windows-1252).
  EXPECT_EQ(ToUtf8("caf\xE9 \x92ok\x92", "iso-8859-1"), "café \u2019ok\u2019");
  EXPECT_EQ(ToUtf8("na\xEFve", "windows-1252"), "naïve");
}

TEST(Charset, ShiftJisAndEucJp) {
  EXPECT_EQ(ToUtf8("\x93\xfa\x96\x7b\x8c\xea", "shift_jis"), "日本語");
  EXPECT_EQ(ToUtf8("\xc6\xfc\xcb\xdc\xb8\xec", "euc-jp"), "日本語");
}

TEST(Charset, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(ToUtf8("ok\xFF\xFEok", "utf-8"), "ok\uFFFD\uFFFDok");
  // 0x81 is not a Shift_JIS lead byte followed by a valid trail here.
  const std::string out = ToUtf8("a\x81\x20z", "shift_jis");
  EXPECT_EQ(out.front(), 'a');
  EXPECT_NE(out.find("\uFFFD"), std::string::npos);
  EXPECT_EQ(out.back(), 'z');
}

TEST(Charset, UnknownCharsetFallsBackToUtf8AndBomDecides) {
  EXPECT_EQ(ToUtf8("h\xC3\xA9", "no-such-charset"), "hé");
  EXPECT_EQ(ToUtf8("\xEF\xBB\xBFhi", "iso-8859-1"), "hi");
  EXPECT_EQ(ToUtf8(std::string("\xFF\xFEh\0i\0", 6), ""), "hi");
}

}  // namespace
}  // namespace ikigai::web_fetch
