#!/usr/bin/env bash
# Issue 14's benchmark: the latency of one file_read call through `ikigai mcp
# serve` (a persistent MCP client, the official TypeScript SDK, over stdio
# and over Streamable HTTP) beside `ikigai tool call --sandbox file_read`
# (the same call in the same sandbox, a new ikigai process each time), in
# the same run, interleaved in rounds.
#
#   bench/mcp-serve.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
[ -d node_modules/@modelcontextprotocol/sdk ] || { echo "npm ci first (the MCP SDK)" >&2; exit 1; }
out="$PWD/bench/out/mcp-serve"
rm -rf "$out"
mkdir -p "$out/home" "$out/work"
printf 'line one\nline two\nline three\n' > "$out/small.txt"

rounds=${ROUNDS:-5}
mcp_calls=${MCP_CALLS:-200}
cli_calls=${CLI_CALLS:-20}
result=$(cd "$out/work" && HOME="$out/home" node "$OLDPWD/bench/mcp-serve.mjs" "$ikigai" \
  "$out/small.txt" "$rounds" "$mcp_calls" "$cli_calls")
stdio=$(jq .stdio_ms <<<"$result")
http=$(jq .http_ms <<<"$result")
cli=$(jq .cli_ms <<<"$result")
echo "file_read of a small file, median of $rounds rounds ($mcp_calls MCP calls, $cli_calls tool calls each):"
printf '  ikigai mcp serve, stdio (SDK client)       %.3f ms\n' "$stdio"
printf '  ikigai mcp serve, Streamable HTTP          %.3f ms\n' "$http"
printf '  ikigai tool call --sandbox (a process)     %.3f ms\n' "$cli"
awk -v s="$stdio" -v h="$http" -v c="$cli" 'BEGIN {
  printf "  ratio tool call / mcp serve stdio          %.1f\n", c / s
  printf "  ratio tool call / mcp serve http           %.1f\n", c / h }'
