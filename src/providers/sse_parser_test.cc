#include "providers/sse_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ikigai::providers {
namespace {

// Recorded from the OpenAI Chat Completions API (ids shortened): text, then
// two tool calls whose arguments are cut mid-token, a finish reason, usage.
constexpr std::string_view kOpenAiStream =
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"content\":\"Let me look \\u00e9t\\u00e9.\"},\"finish_reason\":null}]}\n\n"
    ": OPENROUTER PROCESSING\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_abc\",\"type\":\"function\","
    "\"function\":{\"name\":\"bash\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"comm\"}}]},"
    "\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"and\\\": "
    "\\\"ls\\\"}\"}}]},"
    "\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_def\",\"type\":\"function\","
    "\"function\":{\"name\":\"glob\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
    "\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":41,\"total_tokens\":853}}\n\n"
    "data: [DONE]\n\n";

// Recorded from the Anthropic Messages API: named events, a ping, a text
// block and a tool_use block with its input in pieces.
constexpr std::string_view kAnthropicStream =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
    "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,"
    "\"usage\":{\"input_tokens\":472,\"output_tokens\":2}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\","
    "\"text\":\"\"}}\n\n"
    "event: ping\n"
    "data: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
    "\"text\":\"Okay, let me check \\u2014 one moment.\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\","
    "\"id\":\"toolu_01\",\"name\":\"bash\",\"input\":{}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"{\\\"command\\\": \\\"git st\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"atus\\\"}\"}}\n\n"
    "event: content_block_stop\n"
    "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
    "\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n";

std::vector<SseEvent> ParseInPieces(std::string_view stream, const std::vector<std::size_t>& cuts) {
  SseParser parser;
  std::vector<SseEvent> events;
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    parser.Feed(stream.substr(from, cut - from), events);
    from = cut;
  }
  parser.Feed(stream.substr(from), events);
  return events;
}

std::vector<SseEvent> Parse(std::string_view stream) { return ParseInPieces(stream, {}); }

std::string Replace(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text.substr(i).starts_with(from)) {
      out += to;
      i += from.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

// Every split in two, byte by byte, and random splits in many pieces give
// the events of the whole stream.
void ExpectSameEventsHoweverSplit(std::string_view stream, const std::vector<SseEvent>& expected) {
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    ASSERT_EQ(ParseInPieces(stream, {cut}), expected) << "split at byte " << cut;
  }
  std::vector<std::size_t> every_byte;
  for (std::size_t i = 1; i < stream.size(); ++i) every_byte.push_back(i);
  EXPECT_EQ(ParseInPieces(stream, every_byte), expected) << "byte by byte";
  std::mt19937 random(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::size_t> cuts;
    for (std::size_t at = 0;;) {
      at += 1 + random() % 16;
      if (at >= stream.size()) break;
      cuts.push_back(at);
    }
    ASSERT_EQ(ParseInPieces(stream, cuts), expected) << "random split, round " << round;
  }
}

TEST(SseParserTest, ReadsTheRecordedOpenAiStream) {
  const auto events = Parse(kOpenAiStream);
  ASSERT_EQ(events.size(), 9u);  // the comment is no event
  EXPECT_EQ(events[0].type, "");
  EXPECT_TRUE(events[0].data.starts_with("{\"id\":\"chatcmpl-1\""));
  EXPECT_EQ(events[8].data, "[DONE]");
}

TEST(SseParserTest, ReadsTheRecordedAnthropicStream) {
  const auto events = Parse(kAnthropicStream);
  ASSERT_EQ(events.size(), 12u);
  EXPECT_EQ(events[0].type, "message_start");
  EXPECT_EQ(events[2], (SseEvent{"ping", "{\"type\": \"ping\"}"}));
  EXPECT_EQ(events[11], (SseEvent{"message_stop", "{\"type\":\"message_stop\"}"}));
}

TEST(SseParserTest, TheOpenAiStreamSplitAnywhereGivesTheSameEvents) {
  ExpectSameEventsHoweverSplit(kOpenAiStream, Parse(kOpenAiStream));
}

TEST(SseParserTest, TheAnthropicStreamSplitAnywhereGivesTheSameEvents) {
  ExpectSameEventsHoweverSplit(kAnthropicStream, Parse(kAnthropicStream));
}

TEST(SseParserTest, CrLfAndCrLineEndingsGiveTheSameEventsHoweverSplit) {
  const auto expected = Parse(kAnthropicStream);
  const std::string crlf = Replace(kAnthropicStream, "\n", "\r\n");
  const std::string cr = Replace(kAnthropicStream, "\n", "\r");
  EXPECT_EQ(Parse(crlf), expected);
  EXPECT_EQ(Parse(cr), expected);
  ExpectSameEventsHoweverSplit(crlf, expected);  // includes every cut between a CR and its LF
  ExpectSameEventsHoweverSplit(cr, expected);
  ExpectSameEventsHoweverSplit(Replace(kOpenAiStream, "\n", "\r\n"), Parse(kOpenAiStream));
}

TEST(SseParserTest, MultiLineDataIsJoinedWithNewlines) {
  const std::string stream = "event: note\ndata: first\ndata:second\ndata:  third\ndata\n\n";
  const std::vector<SseEvent> expected = {{"note", "first\nsecond\n third\n"}};
  EXPECT_EQ(Parse(stream), expected);
  ExpectSameEventsHoweverSplit(stream, expected);
}

TEST(SseParserTest, MixedLineEndingsInOneStream) {
  EXPECT_EQ(Parse("data: a\r\ndata: b\rdata: c\n\r\n"), (std::vector<SseEvent>{{"", "a\nb\nc"}}));
}

TEST(SseParserTest, CommentsIdsRetriesAndUnknownFieldsAddNothingToTheEvents) {
  const std::string stream =
      ": keep-alive\n"
      "id: 17\nretry: 3000\nfoo: bar\nevent: x\n:comment inside an event\ndata: one\n\n"
      ":\n\n";
  const std::vector<SseEvent> expected = {{"x", "one"}};
  EXPECT_EQ(Parse(stream), expected);
  ExpectSameEventsHoweverSplit(stream, expected);
}

TEST(SseParserTest, AnEventWithoutDataIsNotDispatchedAndItsTypeDoesNotLeak) {
  EXPECT_EQ(Parse("event: lonely\n\ndata: next\n\n"), (std::vector<SseEvent>{{"", "next"}}));
}

TEST(SseParserTest, EmptyDataIsAnEvent) {
  EXPECT_EQ(Parse("data:\n\n"), (std::vector<SseEvent>{{"", ""}}));
}

TEST(SseParserTest, AnUnfinishedEventAtTheEndIsHeldBack) {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.Feed("data: complete\n\ndata: cut off", events);
  EXPECT_EQ(events, (std::vector<SseEvent>{{"", "complete"}}));
  parser.Feed("\n", events);  // a line, but no blank line yet
  EXPECT_EQ(events.size(), 1u);
}

TEST(SseParserTest, AByteOrderMarkAtTheStartIsSkipped) {
  const std::string stream =
      "\xEF\xBB\xBF"
      "data: x\n\n";
  EXPECT_EQ(Parse(stream), (std::vector<SseEvent>{{"", "x"}}));
  ExpectSameEventsHoweverSplit(stream, {{"", "x"}});
}

TEST(SseParserTest, AColonInTheValueIsKept) {
  EXPECT_EQ(Parse("data: {\"a\": \"b:c\"}\n\n"), (std::vector<SseEvent>{{"", "{\"a\": \"b:c\"}"}}));
}

TEST(SseParserTest, TheLastEventIdIsTheOneSetWhenAnEventEnded) {
  SseParser parser;
  std::vector<SseEvent> events;
  EXPECT_EQ(parser.last_event_id(), "");
  parser.Feed("id: a1\ndata: one\n\n", events);
  EXPECT_EQ(parser.last_event_id(), "a1");
  parser.Feed("id: a2\ndata: two", events);  // the event is not finished yet
  EXPECT_EQ(parser.last_event_id(), "a1");
  parser.Feed("\n\ndata: three\n\n", events);  // an event without id keeps the last one
  EXPECT_EQ(parser.last_event_id(), "a2");
  EXPECT_EQ(events.size(), 3u);
}

TEST(SseParserTest, AnIdWithoutDataStillCounts) {
  // MCP servers open a stream with such a "priming" event: it is something
  // to resume after, though no event is dispatched (an empty `data:` is one).
  SseParser parser;
  std::vector<SseEvent> events;
  parser.Feed("id: prime\nretry: 500\n\n", events);
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(parser.last_event_id(), "prime");
  parser.Feed("id\n\n", events);  // an empty id clears it
  EXPECT_EQ(parser.last_event_id(), "");
}

TEST(SseParserTest, RetryTakesDigitsOnly) {
  SseParser parser;
  std::vector<SseEvent> events;
  EXPECT_EQ(parser.retry(), std::nullopt);
  parser.Feed("retry: 1500\n", events);  // takes effect at once, no blank line needed
  EXPECT_EQ(parser.retry(), std::chrono::milliseconds(1500));
  parser.Feed("retry: 2.5\nretry: -1\nretry:\nretry: 1e3\n\n", events);
  EXPECT_EQ(parser.retry(), std::chrono::milliseconds(1500));
  parser.Feed("retry:0\n", events);
  EXPECT_EQ(parser.retry(), std::chrono::milliseconds(0));
}

TEST(SseParserTest, IdAndRetrySplitAnywhere) {
  const std::string stream = "id: e-1\r\nretry: 250\r\ndata: x\r\n\r\nid: e-2\r\n\r\n";
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    SseParser parser;
    std::vector<SseEvent> events;
    parser.Feed(std::string_view(stream).substr(0, cut), events);
    parser.Feed(std::string_view(stream).substr(cut), events);
    EXPECT_EQ(parser.last_event_id(), "e-2") << "split at byte " << cut;
    EXPECT_EQ(parser.retry(), std::chrono::milliseconds(250)) << "split at byte " << cut;
    EXPECT_EQ(events, (std::vector<SseEvent>{{"", "x"}})) << "split at byte " << cut;
  }
}

}  // namespace
}  // namespace ikigai::providers
