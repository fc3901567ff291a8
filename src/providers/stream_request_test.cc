#include "providers/stream_request.h"

#include <gtest/gtest.h>

#include "providers/http_client.h"

namespace ikigai::providers {
namespace {

using std::chrono::milliseconds;

TEST(RetryDelayTest, DoublesFromHalfASecondUpToEightSeconds) {
  EXPECT_EQ(RetryDelay(0, std::nullopt), milliseconds(500));
  EXPECT_EQ(RetryDelay(1, std::nullopt), milliseconds(1000));
  EXPECT_EQ(RetryDelay(2, std::nullopt), milliseconds(2000));
  EXPECT_EQ(RetryDelay(4, std::nullopt), milliseconds(8000));
  EXPECT_EQ(RetryDelay(50, std::nullopt), milliseconds(8000));
}

TEST(RetryDelayTest, RetryAfterWinsAndIsCappedAtThirtySeconds) {
  EXPECT_EQ(RetryDelay(0, milliseconds(3000)), milliseconds(3000));
  EXPECT_EQ(RetryDelay(3, milliseconds(0)), milliseconds(0));
  EXPECT_EQ(RetryDelay(0, milliseconds(3'600'000)), milliseconds(30000));
}

TEST(ParseRetryAfterTest, SecondsOnly) {
  EXPECT_EQ(ParseRetryAfter("2"), milliseconds(2000));
  EXPECT_EQ(ParseRetryAfter(" 0 "), milliseconds(0));
  EXPECT_EQ(ParseRetryAfter("120"), milliseconds(120000));
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-1"), std::nullopt);
  EXPECT_EQ(ParseRetryAfter(""), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("1.5"), std::nullopt);
  EXPECT_TRUE(ParseRetryAfter("99999999999999999999").has_value());  // long, not an overflow
}

TEST(ErrorMessageFromBodyTest, FindsTheMessageInTheCommonShapes) {
  EXPECT_EQ(ErrorMessageFromBody(R"({"error":{"message":"Invalid API key","type":"x"}})"),
            "Invalid API key");
  EXPECT_EQ(ErrorMessageFromBody(
                R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"),
            "Overloaded");
  EXPECT_EQ(ErrorMessageFromBody(R"({"error":"model not found"})"), "model not found");
  EXPECT_EQ(ErrorMessageFromBody(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(ErrorMessageFromBody(R"({"message":"bad"})"), "bad");
}

TEST(ErrorMessageFromBodyTest, OtherwiseTheTextShortenedOnOneLine) {
  EXPECT_EQ(ErrorMessageFromBody("<html>\n<body>502 Bad Gateway</body>\n</html>\n"),
            "<html> <body>502 Bad Gateway</body> </html>");
  EXPECT_EQ(ErrorMessageFromBody(""), "");
  const std::string long_text(1000, 'x');
  EXPECT_EQ(ErrorMessageFromBody(long_text), std::string(300, 'x') + "...");
  EXPECT_EQ(ErrorMessageFromBody(R"({"error":{"code":5}})"), R"({"error":{"code":5}})");
}

TEST(MissingKeyTest, NamesTheVariable) {
  const ProviderError e = MissingKey("ANTHROPIC_API_KEY");
  EXPECT_EQ(e.kind, ErrorKind::kAuth);
  EXPECT_EQ(e.message, "no API key: set ANTHROPIC_API_KEY");
}

}  // namespace
}  // namespace ikigai::providers
