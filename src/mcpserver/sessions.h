// The MCP sessions open now (one on stdio; any number over HTTP), for what
// the server says to all of them: the tool list changed, a log message.
#pragma once

#include <mutex>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mcpserver/dispatcher.h"

namespace ikigai::mcpserver {

class Sessions {
 public:
  void Add(Dispatcher* session) {
    std::lock_guard lock(mutex_);
    sessions_.insert(session);
  }
  void Remove(Dispatcher* session) {
    std::lock_guard lock(mutex_);
    sessions_.erase(session);
  }
  void NotifyToolsChanged() {
    std::lock_guard lock(mutex_);
    for (Dispatcher* session : sessions_) session->NotifyToolsChanged();
  }
  void Log(std::string_view level, const nlohmann::json& data) {
    std::lock_guard lock(mutex_);
    for (Dispatcher* session : sessions_) session->Log(level, data);
  }

 private:
  std::mutex mutex_;
  std::set<Dispatcher*> sessions_;
};

}  // namespace ikigai::mcpserver
