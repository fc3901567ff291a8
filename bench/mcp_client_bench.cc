// Issue 14's benchmark driver: N tool calls through ikigai's MCP client (the
// server manager, as a session uses it: stdio transport, client, result
// wrapping) to one server, after W warm-up calls. Prints one line of JSON:
// the median and the 90th percentile per call in microseconds.
//
//   mcp_client_bench N W TOOL ARGS_JSON -- COMMAND ARGS...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mcpclient/names.h"
#include "mcpclient/server_manager.h"

int main(int argc, char** argv) {
  using namespace ikigai;
  if (argc < 7 || std::string(argv[5]) != "--") {
    std::fprintf(stderr, "usage: mcp_client_bench N WARMUP TOOL ARGS_JSON -- COMMAND ARGS...\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const int warmup = std::atoi(argv[2]);
  const std::string tool_name = argv[3];
  const auto arguments = nlohmann::json::parse(argv[4]);
  config::McpServerConfig server;
  server.name = "bench";
  server.command = argv[6];
  for (int i = 7; i < argc; ++i) server.args.push_back(argv[i]);
  mcpclient::ServerManager manager({server}, {});
  manager.StartAll();
  for (const std::string& line : manager.WaitStarted()) std::fprintf(stderr, "%s\n", line.c_str());
  const std::string name = mcpclient::ToolNames({{"bench", tool_name}})[0];
  const auto tools = manager.Tools();
  auto tool =
      std::find_if(tools.begin(), tools.end(), [&](const auto& t) { return t.name == name; });
  if (tool == tools.end()) {
    std::fprintf(stderr, "no tool %s\n", name.c_str());
    return 1;
  }
  std::vector<double> micros;
  for (int i = 0; i < warmup + n; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = manager.Call(*tool, arguments, -1);
    const auto end = std::chrono::steady_clock::now();
    if (result["tool_success"] != true) {
      std::fprintf(stderr, "call failed: %s\n", result.dump().c_str());
      return 1;
    }
    if (i >= warmup)
      micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf("{\"calls\": %d, \"median_us\": %.1f, \"p90_us\": %.1f}\n", n,
              micros[micros.size() / 2], micros[micros.size() * 9 / 10]);
  return 0;
}
