#include "mcpserver/serve.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>

#include "base/visible_text.h"
#include "mcpserver/executor_tool_host.h"
#include "mcpserver/http_server.h"
#include "mcpserver/sessions.h"
#include "mcpserver/stdio_server.h"
#include "mcpserver/tool_watch.h"
#include "session/tool_sandbox.h"

namespace ikigai::mcpserver {

int RunServe(const session::HostContext& host, const ServeOptions& options) {
  std::optional<HttpAddress> address;
  if (options.http) {
    auto parsed = ParseHttpAddress(*options.http);
    if (!parsed) {
      std::cerr << "ikigai: " << parsed.error() << "\n";
      return 2;
    }
    address = *parsed;
    // The HTTP server stops on these; one thread waits for them
    // (http_server.h), every other thread leaves them alone.
    sigset_t stop_signals;
    ::sigemptyset(&stop_signals);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaddset(&stop_signals, sig);
    ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  }
  // A client that goes away mid-answer is not a reason to die.
  ::signal(SIGPIPE, SIG_IGN);

  auto tools = ExecutorToolHost::Create(host);
  if (!tools) {
    std::cerr << "ikigai: " << VisibleText(tools.error(), Layout::kKeep) << "\n";
    return 2;
  }
  for (const auto& line : session::NoticeLines(host.sandbox_notice)) {
    std::cerr << "ikigai: " << line << "\n";
  }
  for (const auto& failure : host.registry->failures()) {
    std::cerr << "ikigai: tool " << VisibleText(failure.name, Layout::kOneLine) << " left out ("
              << VisibleText(failure.path, Layout::kOneLine)
              << "): " << VisibleText(failure.reason, Layout::kOneLine) << "\n";
  }

  Sessions sessions;
  ExecutorToolHost& tool_host = **tools;
  ToolWatch watch({host.directories.system, host.directories.user, host.directories.project},
                  [&tool_host, &sessions] {
                    tool_host.Rediscover();
                    const auto registry = tool_host.Tools();
                    sessions.NotifyToolsChanged();
                    sessions.Log("info", "the tool directories changed: " +
                                             std::to_string(registry->tools().size()) +
                                             " tools now");
                    for (const auto& failure : registry->failures()) {
                      sessions.Log("warning", "tool " + failure.name + " left out (" +
                                                  failure.path + "): " + failure.reason);
                    }
                  });

  const ServerInfo info{"ikigai", options.version};
  if (address) return ServeHttp(tool_host, info, sessions, *address);
  ServeStdio(tool_host, info, sessions, STDIN_FILENO, STDOUT_FILENO);
  return 0;
}

}  // namespace ikigai::mcpserver
