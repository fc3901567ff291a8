#!/usr/bin/env bash
# Issue 14's client benchmark: an MCP tool call's round trip through ikigai's
# client (bench/mcp_client_bench.cc: the server manager a session uses, with
# its stdio transport and result wrapping) against the same calls made with
# the official TypeScript SDK's client (bench/mcp_sdk_client.mjs), both to
# server-everything's `echo` over stdio. The goal: ikigai adds under 1 ms.
#
#   bench/mcp-client.sh [BUILD_DIR]      (default: build; needs -DIKIGAI_BUILD_BENCH=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
driver="$PWD/$build/bench/mcp_client_bench"
[ -x "$driver" ] || { echo "build first: cmake -DIKIGAI_BUILD_BENCH=ON ... --target mcp_client_bench" >&2; exit 1; }
server="$PWD/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$server" ] || { echo "npm peers missing: scripts/install-deps.sh" >&2; exit 1; }
calls=${CALLS:-500}
warmup=${WARMUP:-50}
args='{"message": "hello"}'
echo "ikigai client: $("$driver" "$calls" "$warmup" echo "$args" -- node "$server" stdio)"
# The SDK resolves from the project's node_modules (a parent of bench/).
echo "SDK client:    $(node bench/mcp_sdk_client.mjs "$calls" "$warmup" echo "$args" -- node "$server" stdio 2>/dev/null)"
