#include "mcpserver/http_server.h"

#include <pthread.h>
#include <signal.h>

#include <httplib.h>

#include <charconv>
#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "mcpserver/origin.h"

namespace ikigai::mcpserver {
namespace {

using Json = nlohmann::json;

constexpr const char* kPath = "/mcp";
constexpr const char* kSessionHeader = "Mcp-Session-Id";
constexpr const char* kVersionHeader = "MCP-Protocol-Version";
// Threads serving connections: each waiting request holds one, and a
// notifications/cancelled must still find one free.
constexpr std::size_t kConnectionThreads = 64;
// A GET stream says something this often, so that a gone client is noticed.
constexpr auto kKeepAlive = std::chrono::seconds(15);

std::string SseEvent(const Json& message) {
  return "event: message\ndata: " + message.dump(-1, ' ', false, Json::error_handler_t::replace) +
         "\n\n";
}

// Server-initiated messages waiting for one GET stream.
struct SseQueue {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Json> messages;
  bool closed = false;

  void Push(const Json& message) {
    std::lock_guard lock(mutex);
    messages.push_back(message);
    ready.notify_all();
  }
  void Close() {
    std::lock_guard lock(mutex);
    closed = true;
    ready.notify_all();
  }
};

struct HttpSession {
  std::string id;
  std::mutex mutex;
  std::vector<std::shared_ptr<SseQueue>> streams;
  // Last member: destroyed first, while the streams still exist.
  std::unique_ptr<Dispatcher> dispatcher;

  void Broadcast(const Json& message) {
    std::lock_guard lock(mutex);
    for (auto& stream : streams) stream->Push(message);
  }
  void CloseStreams() {
    std::lock_guard lock(mutex);
    for (auto& stream : streams) stream->Close();
    streams.clear();
  }
};

std::string NewSessionId() {
  static std::mutex mutex;
  static std::mt19937_64 random{std::random_device{}()};
  std::lock_guard lock(mutex);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(random()),
                static_cast<unsigned long long>(random()));
  return text;
}

void SetJson(httplib::Response& response, int status, const Json& body) {
  response.status = status;
  response.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace),
                       "application/json");
}

// An HTTP-level refusal, in JSON-RPC's shape so that SDK clients show it.
void Refuse(httplib::Response& response, int status, int code, const std::string& message) {
  SetJson(response, status, ErrorResponse(nullptr, code, message));
}

bool Accepts(const httplib::Request& request, std::string_view type) {
  const std::string accept = request.get_header_value("Accept");
  return accept.empty() || accept.find(type) != std::string::npos ||
         accept.find("*/*") != std::string::npos;
}

class HttpServer {
 public:
  HttpServer(ToolHost& tools, const ServerInfo& info, Sessions& sessions, std::string bound_host)
      : tools_(tools), info_(info), sessions_(sessions), bound_host_(std::move(bound_host)) {
    server_.set_tcp_nodelay(true);
    // httplib's default sets SO_REUSEPORT, with which a second server on the
    // same port shares it and takes half the connections: only REUSEADDR.
    server_.set_socket_options([](int socket) {
      int yes = 1;
      ::setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    server_.new_task_queue = [] { return new httplib::ThreadPool(kConnectionThreads); };
    server_.Post(kPath, [this](const httplib::Request& q, httplib::Response& r) { Post(q, r); });
    server_.Get(kPath, [this](const httplib::Request& q, httplib::Response& r) { Get(q, r); });
    server_.Delete(kPath,
                   [this](const httplib::Request& q, httplib::Response& r) { Delete(q, r); });
  }

  ~HttpServer() { EndAll(); }

  // Ends every session: running calls cancelled, event streams closed, so
  // that the connection threads can be joined.
  void EndAll() {
    std::map<std::string, std::shared_ptr<HttpSession>> open;
    {
      std::lock_guard lock(mutex_);
      open.swap(sessions_by_id_);
    }
    for (auto& [id, session] : open) End(*session);
  }

  httplib::Server& server() { return server_; }

 private:
  // Checks common to every method; false: `response` holds the refusal.
  bool Admit(const httplib::Request& request, httplib::Response& response) {
    if (!AllowedOrigin(request.get_header_value("Origin"), request.get_header_value("Host"),
                       bound_host_)) {
      Refuse(response, 403, kInvalidRequest,
             "Forbidden: Origin or Host is not this machine (DNS rebinding protection). Connect "
             "through localhost or 127.0.0.1.");
      return false;
    }
    if (request.has_header(kVersionHeader) &&
        !IsSupportedProtocolVersion(request.get_header_value(kVersionHeader))) {
      Refuse(response, 400, kInvalidRequest,
             "Bad Request: unsupported MCP-Protocol-Version " +
                 request.get_header_value(kVersionHeader) +
                 "; this server speaks 2025-11-25, 2025-06-18 and 2025-03-26.");
      return false;
    }
    return true;
  }

  // The session the request names; null: `response` holds the refusal.
  std::shared_ptr<HttpSession> Find(const httplib::Request& request, httplib::Response& response) {
    if (!request.has_header(kSessionHeader)) {
      Refuse(response, 400, kInvalidRequest,
             "Bad Request: no Mcp-Session-Id header. Send initialize first and then its "
             "session id with every request.");
      return nullptr;
    }
    std::lock_guard lock(mutex_);
    auto it = sessions_by_id_.find(request.get_header_value(kSessionHeader));
    if (it == sessions_by_id_.end()) {
      Refuse(response, 404, kInvalidRequest,
             "Session not found: it ended or never existed. Initialize a new session.");
      return nullptr;
    }
    return it->second;
  }

  std::shared_ptr<HttpSession> Open() {
    auto session = std::make_shared<HttpSession>();
    session->id = NewSessionId();
    HttpSession* raw = session.get();
    session->dispatcher = std::make_unique<Dispatcher>(
        tools_, info_, [raw](const Json& message) { raw->Broadcast(message); });
    sessions_.Add(session->dispatcher.get());
    std::lock_guard lock(mutex_);
    sessions_by_id_[session->id] = session;
    return session;
  }

  void End(HttpSession& session) {
    sessions_.Remove(session.dispatcher.get());
    session.dispatcher->CancelAll();
    session.CloseStreams();
  }

  void Post(const httplib::Request& request, httplib::Response& response) {
    if (!Admit(request, response)) return;
    const Json message = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    const bool is_initialize = message.is_object() && message.contains("id") &&
                               StringMember(message, "method") == "initialize";
    std::shared_ptr<HttpSession> session;
    if (is_initialize) {
      session = Open();
      response.set_header(kSessionHeader, session->id);
    } else if (message.is_discarded() || !message.is_object()) {
      // Answered without a session: there is nothing to route.
      Json error;
      Dispatcher(tools_, info_, [](const Json&) {}).Handle(request.body, [&](const Json& e) {
        error = e;
      });
      SetJson(response, 400, error);
      return;
    } else {
      session = Find(request, response);
      if (!session) return;
    }
    auto answer = std::make_shared<std::promise<Json>>();
    std::future<Json> future = answer->get_future();
    const Dispatcher::Kind kind = session->dispatcher->HandleJson(
        message,
        // The only owner of the promise: a call cancelled without an answer
        // drops it, which breaks the future instead of leaving it waiting.
        [answer = std::move(answer)](const Json& reply) { answer->set_value(reply); });
    switch (kind) {
      case Dispatcher::Kind::kNotification:
      case Dispatcher::Kind::kResponse:
        response.status = 202;
        return;
      case Dispatcher::Kind::kInvalid:
        SetJson(response, 400, future.get());
        return;
      case Dispatcher::Kind::kRequest:
        break;
    }
    // JSON where the client takes it: a call sends nothing before its
    // answer (no progress), and a JSON answer is the cheaper one to read.
    if (Accepts(request, "application/json")) {
      // A cancelled call never answers: its future is then broken.
      try {
        SetJson(response, 200, future.get());
      } catch (const std::future_error&) {
        response.status = 202;
      }
      return;
    }
    // A client that takes only SSE: the answer as one event.
    auto shared = std::make_shared<std::shared_future<Json>>(future.share());
    response.status = 200;
    response.set_header("Cache-Control", "no-cache");
    response.set_chunked_content_provider("text/event-stream",
                                          [shared](std::size_t, httplib::DataSink& sink) {
                                            try {
                                              const std::string event = SseEvent(shared->get());
                                              sink.write(event.data(), event.size());
                                            } catch (const std::future_error&) {
                                            }
                                            sink.done();
                                            return true;
                                          });
  }

  void Get(const httplib::Request& request, httplib::Response& response) {
    if (!Admit(request, response)) return;
    if (request.get_header_value("Accept").find("text/event-stream") == std::string::npos) {
      Refuse(response, 406, kInvalidRequest,
             "Not Acceptable: GET opens an SSE stream; send Accept: text/event-stream.");
      return;
    }
    auto session = Find(request, response);
    if (!session) return;
    auto queue = std::make_shared<SseQueue>();
    {
      std::lock_guard lock(session->mutex);
      session->streams.push_back(queue);
    }
    std::weak_ptr<HttpSession> weak = session;
    response.status = 200;
    response.set_header("Cache-Control", "no-cache");
    response.set_chunked_content_provider(
        "text/event-stream",
        [queue](std::size_t, httplib::DataSink& sink) {
          std::unique_lock lock(queue->mutex);
          queue->ready.wait_for(lock, kKeepAlive,
                                [&] { return queue->closed || !queue->messages.empty(); });
          if (queue->closed) {
            sink.done();
            return true;
          }
          std::string text;
          while (!queue->messages.empty()) {
            text += SseEvent(queue->messages.front());
            queue->messages.pop_front();
          }
          if (text.empty()) text = ": keep-alive\n\n";
          lock.unlock();
          return sink.write(text.data(), text.size());
        },
        [queue, weak](bool) {
          // The stream ended (client gone or session ended): forget it.
          if (auto owner = weak.lock()) {
            std::lock_guard lock(owner->mutex);
            std::erase(owner->streams, queue);
          }
        });
  }

  void Delete(const httplib::Request& request, httplib::Response& response) {
    if (!Admit(request, response)) return;
    auto session = Find(request, response);
    if (!session) return;
    {
      std::lock_guard lock(mutex_);
      sessions_by_id_.erase(session->id);
    }
    End(*session);
    response.status = 200;
  }

  ToolHost& tools_;
  ServerInfo info_;
  Sessions& sessions_;
  std::string bound_host_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<HttpSession>> sessions_by_id_;
  httplib::Server server_;
};

}  // namespace

Result<HttpAddress, std::string> ParseHttpAddress(std::string_view text) {
  HttpAddress address;
  std::string_view port = text;
  if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    if (host.starts_with("[") && host.ends_with("]")) host = host.substr(1, host.size() - 2);
    if (host.empty()) return Err("--http " + std::string(text) + ": the host is empty");
    address.host = std::string(host);
    port = text.substr(colon + 1);
  }
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (error != std::errc() || end != port.data() + port.size() || address.port < 0 ||
      address.port > 65535) {
    return Err("--http " + std::string(text) +
               ": expected [HOST:]PORT with PORT from 0 to 65535, e.g. 8080 or 127.0.0.1:8080");
  }
  return address;
}

int ServeHttp(ToolHost& tools, const ServerInfo& info, Sessions& sessions,
              const HttpAddress& address) {
  HttpServer server(tools, info, sessions, address.host);
  httplib::Server& http = server.server();
  int port = address.port;
  if (port == 0) {
    port = http.bind_to_any_port(address.host);
    if (port < 0) port = 0;
  } else if (!http.bind_to_port(address.host, port)) {
    port = 0;
  }
  if (port == 0) {
    std::cerr << "ikigai: cannot listen on " << address.host << ":" << address.port
              << " (in use, or not an address of this machine); choose another with --http "
                 "[HOST:]PORT\n";
    return 2;
  }
  const bool v6 = address.host.find(':') != std::string::npos;
  std::cerr << "ikigai: MCP server listening on http://" << (v6 ? "[" : "") << address.host
            << (v6 ? "]" : "") << ":" << port << kPath << "\n";
  if (!IsLoopbackHost(address.host)) {
    std::cerr << "ikigai: warning: " << address.host
              << " is not a loopback address: anyone who can reach it can run tools as you, "
                 "with no authentication\n";
  }
  std::cerr << std::flush;
  // SIGINT, SIGTERM and SIGHUP stop the server (blocked by the caller in
  // every thread; this one waits for them).
  sigset_t stop_signals;
  ::sigemptyset(&stop_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaddset(&stop_signals, sig);
  std::thread stopper([&server, &http, stop_signals] {
    int sig = 0;
    ::sigwait(&stop_signals, &sig);
    server.EndAll();  // else stop() waits for open streams and running calls
    http.stop();
  });
  http.listen_after_bind();
  // Stopped by a signal, or the listening socket failed: wake the stopper.
  ::pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  return 0;
}

}  // namespace ikigai::mcpserver
