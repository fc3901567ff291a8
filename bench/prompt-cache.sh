#!/usr/bin/env bash
# Issue 12's measure of prompt caching: one 20-round `ikigai -p` session
# (each round a tool call answering 3 KB, as a file read would) against
# bench/fake_anthropic_server.py, which emulates Anthropic's prompt cache.
# The usage ikigai reports (--output json) is priced as Anthropic prices it:
# cache reads at 0.1 of plain input, cache writes at 1.25, against the same
# tokens sent without caching.
#
#   bench/prompt-cache.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
out="$PWD/bench/out/prompt-cache"
rm -rf "$out"
mkdir -p "$out/home/.ikigai/tools" "$out/project"
cc -O2 -static -o "$out/home/.ikigai/tools/noop-tool" bench/noop_tool.c
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 bench/fake_anthropic_server.py "$port" 20 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
  sleep 0.1
done
(cd "$out/project" && HOME="$out/home" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
  ANTHROPIC_API_KEY=bench IKIGAI_PERMISSIONS=auto NOOP_OUTPUT_BYTES=3000 \
  "$ikigai" -p "go" --provider anthropic --output json > "$out/answer.json" 2> "$out/stderr.txt")
python3 - "$out/answer.json" <<'PY'
import json, sys
u = json.load(open(sys.argv[1]))["usage"]
plain, read, written = u["input_tokens"], u["cache_read_tokens"], u["cache_write_tokens"]
sent = plain + read + written
cost = plain + 0.1 * read + 1.25 * written
print(f"20 rounds: {sent} input tokens sent: {read} read from the cache, {written} written to it, {plain} plain")
print(f"input priced with caching / without: {cost / sent:.2f}  ({100 * (1 - cost / sent):.0f}% saved)")
PY
