#!/usr/bin/env bash
# Issue 5's benchmark: the host's own time per agent round, and the time from
# starting `ikigai -p` to its first request, against a local
# OpenAI-compatible server that answers at once (bench/fake_llm_server.py).
#
# Per round: the gap between the server sending an answer (a tool call) and
# receiving the next request, minus the tool's own round trip (noop-tool,
# measured alone with bench/roundtrip.c): what is left is ikigai's parsing,
# bookkeeping, spawning overhead and request building.
#
#   bench/agent.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
out="$PWD/bench/out/agent"
rm -rf "$out"
mkdir -p "$out/home" "$out/project/.ikigai/tools"
cc -O2 -static -o "$out/project/.ikigai/tools/noop-tool" bench/noop_tool.c
cc -O2 -o "$out/roundtrip" bench/roundtrip.c
cc -O2 -o "$out/launch_timer" bench/launch_timer.c
printf '{}' > "$out/empty.json"

rounds=${ROUNDS:-30}
runs=${RUNS:-10}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log="$out/requests.jsonl"
python3 bench/fake_llm_server.py "$port" "$rounds" "$log" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
  sleep 0.1
done

starts=()
for run in $(seq "$runs"); do
  kill $server; wait $server 2>/dev/null || true
  : > "$log"
  python3 bench/fake_llm_server.py "$port" "$rounds" "$log" &
  server=$!
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
    sleep 0.05
  done
  (cd "$out/project" && HOME="$out/home" OPENAI_BASE_URL="http://127.0.0.1:$port/v1" \
    OPENAI_API_KEY=bench "$out/launch_timer" "$ikigai" -p "go" --provider openai --model m \
    > /dev/null 2> "$out/stderr-$run.txt")
  cp "$log" "$out/run-$run.jsonl"
  starts+=("$(head -n 1 "$out/stderr-$run.txt")")
done

tool_ms=$("$out/roundtrip" 1000 "$out/empty.json" "$out/project/.ikigai/tools/noop-tool" | jq .median_ms)
python3 - "$out" "$runs" "$tool_ms" "${starts[@]}" <<'PY'
import json, statistics, sys
out, runs, tool_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
starts = [float(s) for s in sys.argv[4:]]
first, gaps = [], []
for run in range(1, runs + 1):
    rows = [json.loads(l) for l in open(f"{out}/run-{run}.jsonl")]
    first.append((rows[0]["arrived"] - starts[run - 1]) * 1000)
    for a, b in zip(rows, rows[1:]):
        gaps.append((b["arrived"] - a["answered"]) * 1000 - tool_ms)
f, g = statistics.median(first), statistics.median(gaps)
print(f"start of ikigai -p to the first request: {f:6.2f} ms  (goal < 30 ms): {'met' if f < 30 else 'MISSED'}")
print(f"host time per agent round:              {g:6.2f} ms  (goal < 2 ms; tool round trip {tool_ms:.2f} ms subtracted): {'met' if g < 2 else 'MISSED'}")
PY
