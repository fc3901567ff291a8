#include "providers/testing/aimock_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;

namespace ikigai::providers::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// node, found on PATH by the parent: the child must not allocate after fork.
std::string FindNode() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/node";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "/usr/bin/node";
}

size_t Collect(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// One request to aimock's control API.
Result<std::string, std::string> Control(const std::string& url, const char* method,
                                         const std::string& body) {
  CURL* easy = curl_easy_init();
  if (!easy) return Err(std::string("curl_easy_init failed"));
  std::string answer;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(
      headers, (std::string("Authorization: Bearer ") + AimockServer::kApiKey).c_str());
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
  if (std::string(method) != "GET") curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Collect);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 10000L);
  const CURLcode code = curl_easy_perform(easy);
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(easy);
  if (code != CURLE_OK)
    return Err(std::string(method) + " " + url + ": " + curl_easy_strerror(code));
  if (status != 200)
    return Err(std::string(method) + " " + url + ": HTTP " + std::to_string(status) + ": " +
               answer);
  return answer;
}

}  // namespace

Result<std::unique_ptr<AimockServer>, std::string> AimockServer::Start(std::string_view fixtures,
                                                                       bool strict_turn_index) {
  const std::string cli = IKIGAI_AIMOCK_CLI;
  if (access(cli.c_str(), R_OK) != 0) {
    return Err("aimock is not installed (" + cli +
               " is missing): run scripts/install-deps.sh, or npm ci in the repository root");
  }
  std::unique_ptr<AimockServer> server(new AimockServer());
  char dir_template[] = "/tmp/ikigai-aimock-XXXXXX";
  if (!mkdtemp(dir_template)) return Err(std::string("mkdtemp failed"));
  server->dir_ = dir_template;
  const std::string fixture_file = server->dir_ + "/fixtures.json";
  const std::string log_file = server->dir_ + "/aimock.log";
  std::ofstream(fixture_file) << fixtures;

  // Everything the child needs is prepared here: after fork it only makes
  // system calls.
  const std::string node = FindNode();
  std::vector<std::string> args = {node,        cli,          "--port",     "0",           "--host",
                                   "127.0.0.1", "--fixtures", fixture_file, "--log-level", "info"};
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    if (std::string_view(*e).starts_with("AIMOCK_")) continue;
    env.emplace_back(*e);
  }
  env.push_back(std::string("AIMOCK_API_KEYS=") + kApiKey);
  if (strict_turn_index) env.emplace_back("AIMOCK_STRICT_TURN_INDEX=1");
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int log_fd = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return Err("cannot create " + log_file);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return Err(std::string("fork failed"));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a crashed test leaves no server behind
    if (getppid() != parent) _exit(127);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(log_fd);
  server->pid_ = pid;

  // aimock prints "aimock server listening on http://127.0.0.1:PORT".
  const std::string marker = "listening on http://127.0.0.1:";
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    const std::string log = ReadAll(log_file);
    if (auto at = log.find(marker); at != std::string::npos) {
      const int port = std::atoi(log.c_str() + at + marker.size());
      if (port > 0 && log.find('\n', at) != std::string::npos) {
        server->port_ = port;
        return server;
      }
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      server->pid_ = -1;
      return Err("aimock exited at start: " + log);
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return Err("aimock did not start within 20 s: " + ReadAll(log_file));
}

AimockServer::~AimockServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > until) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(milliseconds(5));
    }
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

std::string AimockServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }
std::string AimockServer::openai_base_url() const { return url() + "/v1"; }
std::string AimockServer::anthropic_base_url() const { return url(); }

Result<std::monostate, std::string> AimockServer::SetFixtures(std::string_view fixtures) {
  if (auto reset = Control(url() + "/__aimock/reset", "POST", "{}"); !reset)
    return Err(reset.error());
  if (auto added = Control(url() + "/__aimock/fixtures", "POST", std::string(fixtures)); !added) {
    return Err(added.error());
  }
  return std::monostate{};
}

Result<json, std::string> AimockServer::Journal() const {
  auto answer = Control(url() + "/__aimock/journal", "GET", "");
  if (!answer) return Err(answer.error());
  json journal = json::parse(*answer, nullptr, /*allow_exceptions=*/false);
  if (!journal.is_array()) return Err("the journal is not a JSON array: " + *answer);
  return journal;
}

std::string AimockServer::Log() const { return ReadAll(dir_ + "/aimock.log"); }

void SuiteAimock::Start(std::string_view fixtures) {
  auto started = AimockServer::Start(fixtures);
  if (started) {
    server_ = std::move(*started);
  } else {
    start_error_ = std::move(started.error());
  }
}

void SuiteAimock::Stop() { server_.reset(); }

Result<AimockServer*, std::string> SuiteAimock::Reset(std::string_view fixtures) {
  if (server_ == nullptr) return Err("aimock did not start: " + start_error_);
  auto reset = server_->SetFixtures(fixtures);
  if (!reset) return Err(std::move(reset.error()));
  return server_.get();
}

}  // namespace ikigai::providers::testing
