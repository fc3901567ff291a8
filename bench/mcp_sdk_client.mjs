// Issue 14's reference: the same N calls with the official TypeScript SDK's
// client over stdio, timed the same way (median, p90 in microseconds).
//   node mcp_sdk_client.mjs N WARMUP TOOL ARGS_JSON -- COMMAND ARGS...
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [n, warmup, tool, args, dash, command, ...rest] = process.argv.slice(2);
if (dash !== '--') throw new Error('usage: N WARMUP TOOL ARGS_JSON -- COMMAND ARGS...');
const client = new Client({ name: 'bench', version: '1' });
await client.connect(new StdioClientTransport({ command, args: rest }));
const times = [];
for (let i = 0; i < Number(warmup) + Number(n); ++i) {
  const start = process.hrtime.bigint();
  await client.callTool({ name: tool, arguments: JSON.parse(args) });
  const end = process.hrtime.bigint();
  if (i >= Number(warmup)) times.push(Number(end - start) / 1000);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ calls: Number(n), median_us: +times[times.length >> 1].toFixed(1),
                             p90_us: +times[Math.floor(times.length * 9 / 10)].toFixed(1) }));
await client.close();
