// A StreamSink that remembers what it was given, for tests.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "providers/provider.h"

namespace ikigai::providers::testing {

struct RecordingSink {
  std::vector<std::string> texts;  // each on_text call
  std::vector<ToolCall> calls;     // each on_tool_call
  std::vector<std::string> retries;
  std::vector<std::chrono::milliseconds> waits;

  std::string text() const {
    std::string all;
    for (const std::string& t : texts) all += t;
    return all;
  }

  StreamSink sink() {
    StreamSink s;
    s.on_text = [this](std::string_view t) { texts.emplace_back(t); };
    s.on_tool_call = [this](const ToolCall& c) { calls.push_back(c); };
    s.on_retry = [this](std::string_view reason, std::chrono::milliseconds wait) {
      retries.emplace_back(reason);
      waits.push_back(wait);
    };
    return s;
  }
};

}  // namespace ikigai::providers::testing
