// Timing for bench/mcp-serve.sh: file_read calls through `ikigai mcp serve`
// (one persistent SDK client over stdio, and one over Streamable HTTP) and
// through `ikigai tool call --sandbox` (a process per call), interleaved in
// rounds so that all see the same machine. Prints one JSON object of medians.
//
//   node bench/mcp-serve.mjs IKIGAI FILE ROUNDS MCP_CALLS CLI_CALLS
import { spawn, spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [ikigai, file, rounds, mcpCalls, cliCalls] = process.argv.slice(2);
const args = { file_path: file };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function timeCalls(client, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const result = await client.callTool({ name: "file_read", arguments: args });
    times.push(performance.now() - start);
    if (result.isError) throw new Error(JSON.stringify(result));
  }
  return median(times);
}

function timeCli(n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const run = spawnSync(ikigai, ["tool", "call", "--sandbox", "file_read", JSON.stringify(args)]);
    times.push(performance.now() - start);
    if (run.status !== 0) throw new Error(String(run.stdout) + String(run.stderr));
  }
  return median(times);
}

const stdio = new Client({ name: "bench", version: "1" });
await stdio.connect(new StdioClientTransport({ command: ikigai, args: ["mcp", "serve"] }));

const server = spawn(ikigai, ["mcp", "serve", "--http", "127.0.0.1:0"],
                     { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
  let text = "";
  server.stderr.on("data", (d) => {
    text += d;
    const match = text.match(/listening on (http:\/\/\S+\/mcp)/);
    if (match) resolve(match[1]);
  });
  server.on("exit", () => reject(new Error("ikigai mcp serve --http exited: " + text)));
});
const http = new Client({ name: "bench", version: "1" });
await http.connect(new StreamableHTTPClientTransport(new URL(url)));

await timeCalls(stdio, 20);  // warm up: page cache, schema cache, JIT
await timeCalls(http, 20);
timeCli(3);
const results = { stdio: [], http: [], cli: [] };
for (let r = 0; r < Number(rounds); r++) {
  results.stdio.push(await timeCalls(stdio, Number(mcpCalls)));
  results.http.push(await timeCalls(http, Number(mcpCalls)));
  results.cli.push(timeCli(Number(cliCalls)));
}
await stdio.close();
await http.close();
server.kill("SIGTERM");
console.log(JSON.stringify({ stdio_ms: median(results.stdio), http_ms: median(results.http),
                             cli_ms: median(results.cli) }));
process.exit(0);
