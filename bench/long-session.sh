#!/usr/bin/env bash
# Issue 12's benchmark: the host's own time per round must not grow with the
# session. One `ikigai -p` session of 300 rounds against a local
# OpenAI-compatible server that answers at once (bench/fake_llm_server.py),
# each round one tool call whose answer is about 1 KB (noop-tool with
# NOOP_OUTPUT_BYTES), so that by the end the conversation holds 300 results;
# the context window is set far above it, so nothing is compacted. Per
# round: the gap between the server's answer and the next request, less the
# tool's own round trip. Medians of rounds 1-10 against rounds 290-300, over
# RUNS sessions (default 3); goal: within 20%.
#
#   bench/long-session.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
out="$PWD/bench/out/long-session"
rm -rf "$out"
mkdir -p "$out/home/.ikigai/tools" "$out/project"
cc -O2 -static -o "$out/home/.ikigai/tools/noop-tool" bench/noop_tool.c
cc -O2 -o "$out/roundtrip" bench/roundtrip.c
printf '{}' > "$out/empty.json"
printf '{"context_window": 100000000, "max_rounds": 400}' > "$out/home/.ikigai/config.json"

rounds=301
runs=${RUNS:-3}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log="$out/requests.jsonl"
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null' EXIT
for run in $(seq "$runs"); do
  [ -n "$server" ] && { kill $server; wait $server 2>/dev/null || true; }
  : > "$log"
  python3 bench/fake_llm_server.py "$port" "$rounds" "$log" &
  server=$!
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
    sleep 0.05
  done
  (cd "$out/project" && HOME="$out/home" OPENAI_BASE_URL="http://127.0.0.1:$port/v1" \
    OPENAI_API_KEY=bench IKIGAI_PERMISSIONS=${PERMS:-auto} NOOP_OUTPUT_BYTES=1000 \
    "$ikigai" -p "go" --provider openai --model m > /dev/null 2> "$out/stderr-$run.txt")
  # The server logs a round after its answer is sent: the last line may
  # come just after ikigai has read the answer and exited.
  for _ in $(seq 100); do
    [ "$(wc -l < "$log")" -ge "$rounds" ] && break
    sleep 0.02
  done
  cp "$log" "$out/run-$run.jsonl"
done

tool_ms=$(NOOP_OUTPUT_BYTES=1000 "$out/roundtrip" 1000 "$out/empty.json" \
  "$out/home/.ikigai/tools/noop-tool" | jq .median_ms)
python3 - "$out" "$runs" "$tool_ms" <<'PY'
import json, statistics, sys
out, runs, tool_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
early, late = [], []
for run in range(1, runs + 1):
    rows = [json.loads(l) for l in open(f"{out}/run-{run}.jsonl")]
    gaps = [(b["arrived"] - a["answered"]) * 1000 - tool_ms for a, b in zip(rows, rows[1:])]
    if len(gaps) < 300:
        sys.exit(f"run {run}: only {len(gaps)} rounds; see {out}/stderr-{run}.txt")
    early += gaps[0:10]
    late += gaps[289:299]
e, l = statistics.median(early), statistics.median(late)
ratio = l / e
print(f"host time per round, rounds 1-10:    {e:6.3f} ms")
print(f"host time per round, rounds 290-300: {l:6.3f} ms  (300 results of ~1 KB in the conversation)")
print(f"late / early: {ratio:.2f}  (goal <= 1.20): {'met' if ratio <= 1.2 else 'MISSED'}")
PY
