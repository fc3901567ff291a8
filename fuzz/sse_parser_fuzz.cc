// The SSE parser (src/providers/sse_parser.h) on any byte stream, fed whole,
// one byte at a time, and in chunks split at points chosen from the input:
// every split must give the same events (and the same last event id and
// retry time), and the events never hold more bytes than the stream.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.h"
#include "providers/sse_parser.h"

using ikigai::providers::SseEvent;
using ikigai::providers::SseParser;

namespace {

std::vector<SseEvent> FeedInChunks(std::string_view stream, ikigai::fuzz::Choices& choices) {
  SseParser parser;
  std::vector<SseEvent> events;
  while (!stream.empty()) {
    // Mostly short chunks (the hard cases: a CR and its LF apart, a field
    // name cut), sometimes long ones, sometimes empty ones.
    const std::size_t limit = choices.Below(4) == 0 ? stream.size() + 1 : 8;
    const std::size_t n = std::min(stream.size(), choices.Below(limit));
    parser.Feed(stream.substr(0, n), events);
    stream.remove_prefix(n);
  }
  parser.Feed({}, events);
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view stream = ikigai::fuzz::AsText(data, size);

  SseParser whole_parser;
  std::vector<SseEvent> whole;
  whole_parser.Feed(stream, whole);

  std::size_t bytes = 0;
  for (const SseEvent& event : whole) {
    bytes += event.type.size() + event.data.size();
    // A line ends at CR or LF: neither is ever inside a type, nor a CR in data.
    FUZZ_CHECK(event.type.find_first_of("\r\n") == std::string::npos);
    FUZZ_CHECK(event.data.find('\r') == std::string::npos);
  }
  FUZZ_CHECK(bytes <= size);

  SseParser byte_parser;
  std::vector<SseEvent> by_byte;
  for (std::size_t i = 0; i < size; ++i) byte_parser.Feed(stream.substr(i, 1), by_byte);
  FUZZ_CHECK(by_byte == whole);
  FUZZ_CHECK(byte_parser.last_event_id() == whole_parser.last_event_id());
  FUZZ_CHECK(byte_parser.retry() == whole_parser.retry());
  FUZZ_CHECK(whole_parser.last_event_id().find_first_of(std::string_view("\r\n\0", 3)) ==
             std::string::npos);

  ikigai::fuzz::Choices choices(stream);
  for (int round = 0; round < 2; ++round) FUZZ_CHECK(FeedInChunks(stream, choices) == whole);

  // One cut anywhere: the two halves give the events of the whole.
  SseParser cut_parser;
  std::vector<SseEvent> cut;
  const std::size_t at = choices.Below(size + 1);
  cut_parser.Feed(stream.substr(0, at), cut);
  cut_parser.Feed(stream.substr(at), cut);
  FUZZ_CHECK(cut == whole);
  FUZZ_CHECK(cut_parser.last_event_id() == whole_parser.last_event_id());
  FUZZ_CHECK(cut_parser.retry() == whole_parser.retry());
  return 0;
}
