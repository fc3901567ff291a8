// Server-sent events (the WHATWG "text/event-stream" format), parsed
// incrementally.
//
// Problem: the network cuts the stream anywhere: inside a field name, inside
// a UTF-8 sequence, between the CR and the LF of a line ending. Approach: the
// parser keeps the unfinished line and the event being built between calls,
// so feeding the bytes in any split gives the same events. A CR ends a line
// at once and a following LF, even in the next chunk, is skipped; so CRLF,
// LF and CR endings all work without waiting for more input.
//
// Per the specification: `event:` sets the type, `data:` lines are joined
// with '\n', one space after the colon is dropped, lines starting with ':'
// are comments, unknown fields are ignored, a blank line dispatches the
// event (none if it had no data), and an unfinished event at the end of the
// stream is dropped. `id:` and `retry:` are what a reader needs to resume a
// broken stream (MCP's Streamable HTTP): the last event id becomes the one
// last set when a blank line ends an event (even one without data), and
// `retry:` (digits only) sets the reconnection time at once.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ikigai::providers {

struct SseEvent {
  std::string type;  // the `event:` field; empty when there was none
  std::string data;  // the `data:` lines joined with '\n'
  bool operator==(const SseEvent&) const = default;
};

class SseParser {
 public:
  // Appends the events completed by `bytes` to `out`.
  void Feed(std::string_view bytes, std::vector<SseEvent>& out);

  // The id to resume after (empty: none was given, or `id:` cleared it).
  const std::string& last_event_id() const { return last_event_id_; }
  // The reconnection time the server asked for with `retry:`, if it did.
  std::optional<std::chrono::milliseconds> retry() const { return retry_; }

 private:
  void Line(std::string_view line, std::vector<SseEvent>& out);

  std::string line_;        // the unfinished line
  bool skip_lf_ = false;    // the last byte was a CR: an LF right after it ends nothing
  bool first_line_ = true;  // a byte order mark may open the stream
  std::string type_;
  std::string data_;
  bool has_data_ = false;
  std::string id_;  // the id of the event being built ("last event ID buffer")
  std::string last_event_id_;
  std::optional<std::chrono::milliseconds> retry_;
};

}  // namespace ikigai::providers
