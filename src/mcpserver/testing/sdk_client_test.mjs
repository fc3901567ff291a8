// The official TypeScript SDK client against `ikigai mcp serve`, over stdio
// and over Streamable HTTP: list, call, an operation error, an unknown tool,
// cancel (the tool's process must be gone), list_changed, and the HTTP
// refusals (no session, unknown session, foreign Origin, ended session).
//
//   node sdk_client_test.mjs IKIGAI_BIN TEST_TOOLS_DIR
// Exits 0 when every check passes; prints what failed otherwise.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [ikigai, testTools] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!ikigai || !testTools) {
  console.error("usage: node sdk_client_test.mjs IKIGAI_BIN TEST_TOOLS_DIR");
  process.exit(2);
}

// A home of its own: the test tools are the user's tools there.
const home = fs.mkdtempSync(path.join(os.tmpdir(), "ikigai-mcp-sdk-"));
const userTools = path.join(home, ".ikigai", "tools");
fs.mkdirSync(userTools, { recursive: true });
for (const name of fs.readdirSync(testTools)) {
  fs.symlinkSync(path.join(testTools, name), path.join(userTools, name));
}
const work = path.join(home, "work");
fs.mkdirSync(work);
fs.writeFileSync(path.join(work, "hello.txt"), "line one\nline two\n");
fs.mkdirSync(path.join(home, "tmp"));
const env = { PATH: process.env.PATH, HOME: home, TMPDIR: path.join(home, "tmp") };

let failures = 0;
function check(condition, what) {
  if (condition) {
    console.log(`ok   ${what}`);
  } else {
    console.log(`FAIL ${what}`);
    failures++;
  }
}

// Waits for `condition` (polled): the deadline is for a broken server only.
async function until(condition, what, ms = 60000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  console.log(`FAIL waited ${ms} ms for ${what}`);
  failures++;
  return false;
}

// Running: a killed process that its parent (ikigai, a subreaper for its
// tools' orphans) has not reaped yet is a zombie, not alive.
function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function exercise(label, client) {
  client.onerror = (error) => console.log(`note ${label}: client error: ${error}`);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check(names.includes("file_read") && names.includes("test_simple_text"),
        `${label}: tools/list has the core and the user's tools`);
  const fileRead = tools.find((t) => t.name === "file_read");
  check(fileRead?.inputSchema?.type === "object" && fileRead?.annotations?.readOnlyHint === true,
        `${label}: file_read has its schema and readOnlyHint`);

  const read = await client.callTool({ name: "file_read",
                                       arguments: { file_path: path.join(work, "hello.txt") } });
  check(read.isError === false && JSON.stringify(read.structuredContent).includes("line two") &&
        read.content[0].type === "text" && read.content[0].text.includes("line two"),
        `${label}: file_read answers text and structuredContent`);

  const missing = await client.callTool({ name: "file_read",
                                          arguments: { file_path: path.join(work, "nope.txt") } });
  check(missing.isError === true && missing.content[0].text.length > 0,
        `${label}: an operation failure is isError with the message`);

  // Nobody can answer a tool's question here: NO_USER, never an empty answer.
  const asked = await client.callTool({ name: "ask_user", arguments: { question: "Which?" } });
  check(asked.isError === true && asked.content[0].text.includes("NO_USER"),
        `${label}: ask_user answers NO_USER`);

  const failed = await client.callTool({ name: "test_error_handling", arguments: {} });
  check(failed.isError === true &&
        failed.content[0].text.includes("intentionally returns an error"),
        `${label}: test_error_handling is isError`);

  let unknown = null;
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (error) {
    unknown = error;
  }
  check(unknown !== null && String(unknown.message).includes("Unknown tool"),
        `${label}: an unknown tool is an error`);

  // Cancel: the slow tool writes "SHELL_PID SLEEP_PID", then waits.
  const pidFile = path.join(work, `${label}.pid`);
  const abort = new AbortController();
  const call = client.callTool({ name: "slow", arguments: { pid_file: pidFile } }, undefined,
                               { signal: abort.signal, timeout: 600000 });
  const started = await until(() => fs.existsSync(pidFile), `${label}: the slow tool to start`);
  if (started) {
    const pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    check(pids.every(alive), `${label}: the slow tool runs`);
    abort.abort("test cancels");
    let rejected = false;
    try { await call; } catch { rejected = true; }
    check(rejected, `${label}: the cancelled call is rejected on the client`);
    await until(() => !pids.some(alive), `${label}: the slow tool's processes to be gone`);
    check(!pids.some(alive), `${label}: cancel killed the tool's process group`);
  }
  const again = await client.callTool({ name: "test_simple_text", arguments: {} });
  check(again.content[0].text === "This is a simple text response for testing.",
        `${label}: calls work after a cancel`);

  // Several calls at once, answered in any order.
  const many = await Promise.all([1, 2, 3, 4].map(() =>
      client.callTool({ name: "test_simple_text", arguments: {} })));
  check(many.every((r) => r.isError === false), `${label}: four calls at once`);
}

async function listChanged(label, client) {
  let changed = false;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed = true; });
  const added = path.join(userTools, `added_${label}-tool`);
  fs.copyFileSync(path.join(testTools, "test_simple_text-tool"), added + ".tmp");
  fs.chmodSync(added + ".tmp", 0o755);
  fs.renameSync(added + ".tmp", added);
  await until(() => changed, `${label}: notifications/tools/list_changed`);
  check(changed, `${label}: adding a tool sends tools/list_changed`);
  const { tools } = await client.listTools();
  check(tools.some((t) => t.name === `added_${label}`), `${label}: the new tool is listed`);
  fs.rmSync(added);
}

async function overStdio() {
  const transport = new StdioClientTransport({ command: ikigai, args: ["mcp", "serve"], env,
                                               cwd: work, stderr: "inherit" });
  const client = new Client({ name: "ikigai-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  check(client.getServerVersion()?.name === "ikigai", "stdio: initialize names the server");
  await exercise("stdio", client);
  await listChanged("stdio", client);
  await client.close();
}

// Raw stdio: the end of stdin ends the server, and the call it was running.
async function endOfInput() {
  const server = spawn(ikigai, ["mcp", "serve"], { env, cwd: work,
                                                   stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => server.on("exit", (code) => resolve(code)));
  const pidFile = path.join(work, "eof.pid");
  const send = (m) => server.stdin.write(JSON.stringify(m) + "\n");
  send({ jsonrpc: "2.0", id: 1, method: "initialize",
         params: { protocolVersion: "2025-11-25", capabilities: {},
                   clientInfo: { name: "raw", version: "1" } } });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/call",
         params: { name: "slow", arguments: { pid_file: pidFile } } });
  if (!(await until(() => fs.existsSync(pidFile), "eof: the slow tool to start"))) return;
  const pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
  server.stdin.end();
  check((await exited) === 0, "stdio: the end of stdin ends the server (status 0)");
  await until(() => !pids.some(alive), "eof: the slow tool's processes to be gone");
  check(!pids.some(alive), "stdio: the end of stdin kills the running tool");
}

// --permissions ask: what would need approval is refused, read-only runs.
async function askMode() {
  const transport = new StdioClientTransport({ command: ikigai,
                                               args: ["mcp", "serve", "--permissions", "ask"],
                                               env, cwd: work, stderr: "inherit" });
  const client = new Client({ name: "ikigai-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  const refused = await client.callTool({ name: "slow",
                                          arguments: { pid_file: path.join(work, "ask.pid") } });
  check(refused.isError === true && refused.content[0].text.includes("PERMISSION_DENIED") &&
        !fs.existsSync(path.join(work, "ask.pid")),
        "ask: a call that needs approval is refused and does not run");
  const read = await client.callTool({ name: "test_simple_text", arguments: {} });
  check(read.isError === false, "ask: a read-only call runs");
  await client.close();
}

function startHttpServer() {
  const server = spawn(ikigai, ["mcp", "serve", "--http", "127.0.0.1:0"],
                       { env, cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  server.stdout.on("data", (d) => { stdout += d; });
  return new Promise((resolve, reject) => {
    let stderr = "";
    server.stderr.on("data", (d) => {
      process.stderr.write(d);
      stderr += d;
      const match = stderr.match(/listening on (http:\/\/\S+\/mcp)/);
      if (match) resolve({ server, url: match[1], stdout: () => stdout });
    });
    server.on("exit", (code) => reject(new Error(`ikigai mcp serve --http exited with ${code}`)));
  });
}

async function post(url, body, headers = {}) {
  return fetch(url, { method: "POST", body: JSON.stringify(body),
                      headers: { "Content-Type": "application/json",
                                 Accept: "application/json, text/event-stream", ...headers } });
}

async function overHttp() {
  const { server, url, stdout } = await startHttpServer();
  try {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: "ikigai-sdk-test", version: "1.0.0" });
    await client.connect(transport);
    check(transport.sessionId?.length > 0, "http: initialize gives a session id");
    await exercise("http", client);
    await listChanged("http", client);

    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    check((await post(url, ping)).status === 400, "http: no session id is 400");
    check((await post(url, ping, { "Mcp-Session-Id": "nope" })).status === 404,
          "http: an unknown session id is 404");
    const foreign = await post(url, ping, { "Mcp-Session-Id": transport.sessionId,
                                            Origin: "http://evil.example.com" });
    check(foreign.status === 403, "http: a foreign Origin is 403");
    const local = await post(url, ping, { "Mcp-Session-Id": transport.sessionId,
                                          Origin: "http://localhost:5173" });
    check(local.status === 200 && (await local.json()).result !== undefined,
          "http: a loopback Origin is served");
    const badVersion = await post(url, ping, { "Mcp-Session-Id": transport.sessionId,
                                               "MCP-Protocol-Version": "1999-01-01" });
    check(badVersion.status === 400, "http: an unsupported MCP-Protocol-Version is 400");
    const sse = await post(url, ping, { "Mcp-Session-Id": transport.sessionId,
                                        Accept: "text/event-stream" });
    const event = await sse.text();
    check(sse.headers.get("content-type")?.startsWith("text/event-stream") &&
          /^event: message\ndata: \{.*"result":\{\}/.test(event),
          "http: a client that takes only SSE gets the answer as an event");
    const note = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" },
                            { "Mcp-Session-Id": transport.sessionId });
    check(note.status === 202, "http: a notification is 202");
    const garbage = await fetch(url, { method: "POST", body: "{not json",
                                       headers: { "Content-Type": "application/json",
                                                  Accept: "application/json" } });
    check(garbage.status === 400 && (await garbage.json()).error.code === -32700,
          "http: bad JSON is a parse error");

    const sessionId = transport.sessionId;
    await transport.terminateSession();
    check((await post(url, ping, { "Mcp-Session-Id": sessionId })).status === 404,
          "http: an ended session is 404");
    await client.close();
    check(stdout() === "", "http: nothing on stdout");
  } finally {
    // A client with its GET stream open and a call running must not hold
    // the server up: SIGTERM cancels the call and closes the streams.
    const lingering = new Client({ name: "ikigai-sdk-test", version: "1.0.0" });
    let pids = [];
    try {
      await lingering.connect(new StreamableHTTPClientTransport(new URL(url)));
      const pidFile = path.join(work, "sigterm.pid");
      lingering.callTool({ name: "slow", arguments: { pid_file: pidFile } }, undefined,
                         { timeout: 600000 }).catch(() => {});
      if (await until(() => fs.existsSync(pidFile), "http: the slow tool to start before SIGTERM")) {
        pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
      }
    } catch (error) {
      check(false, `http: a client to linger: ${error}`);
    }
    let exited = false;
    server.on("exit", () => { exited = true; });
    server.kill("SIGTERM");
    await until(() => exited, "http: the server to stop on SIGTERM");
    check(exited, "http: SIGTERM stops the server (no request left waiting)");
    if (!exited) server.kill("SIGKILL");
    await until(() => !pids.some(alive), "http: the running tool to be gone after SIGTERM");
    check(!pids.some(alive), "http: SIGTERM killed the running tool");
  }
}

try {
  await overStdio();
  await endOfInput();
  await askMode();
  await overHttp();
} catch (error) {
  console.log(`FAIL ${error.stack ?? error}`);
  failures++;
}
fs.rmSync(home, { recursive: true, force: true });
console.log(failures === 0 ? "all passed" : `${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
