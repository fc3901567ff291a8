#!/usr/bin/env bash
# Issue 13's benchmark: from the parent's answer asking for a subagent (a
# task tool call) to the subagent's first request at the server. That
# covers the task tool's start, the host channel, the host starting
# `ikigai -p` again, the subagent's discovery (schema cache warm) and its
# first request: an upper bound of "a subagent's start to its first
# request". Against a local OpenAI-compatible server that answers at once
# (bench/fake_task_server.py); the same server's `ikigai -p` start to first
# request is printed beside it, as the peer figure: what any new agent
# process costs.
#
#   bench/subagent.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
out="$PWD/bench/out/subagent"
rm -rf "$out"
mkdir -p "$out/home" "$out/project"
cc -O2 -o "$out/launch_timer" bench/launch_timer.c
runs=${RUNS:-15}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log="$out/requests.jsonl"
python3 bench/fake_task_server.py "$port" "$log" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
  sleep 0.1
done
run_ikigai() {
  (cd "$out/project" && HOME="$out/home" OPENAI_BASE_URL="http://127.0.0.1:$port/v1" \
    OPENAI_API_KEY=bench IKIGAI_PERMISSIONS=auto "$out/launch_timer" "$ikigai" -p "$1" \
    --provider openai --model m > /dev/null 2> "$out/stderr.txt")
  head -n 1 "$out/stderr.txt"
}
run_ikigai parent > /dev/null  # warms the schema cache, as any earlier run would
subagent=() start=()
for _ in $(seq "$runs"); do
  : > "$log"
  run_ikigai parent > /dev/null
  subagent+=("$(python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
asked = next(r["answered"] for r in rows if r["who"] == "parent")
child = next(r["arrived"] for r in rows if r["who"] == "child")
print((child - asked) * 1000)' "$log")")
  : > "$log"
  launched=$(run_ikigai child)
  start+=("$(python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print((rows[0]["arrived"] - float(sys.argv[2])) * 1000)' "$log" "$launched")")
done
python3 - "${subagent[*]}" "${start[*]}" <<'PY'
import statistics, sys
sub = statistics.median(float(x) for x in sys.argv[1].split())
start = statistics.median(float(x) for x in sys.argv[2].split())
print(f"task call answered to the subagent's first request: {sub:6.2f} ms  (goal < 50 ms): {'met' if sub < 50 else 'MISSED'}")
print(f"ikigai -p started by hand to its first request:     {start:6.2f} ms  (ratio {sub / start:.2f})")
PY
