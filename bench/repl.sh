#!/usr/bin/env bash
# Issue 6's benchmark: from starting `ikigai` in a pseudo-terminal to its
# interactive prompt, with the six core tools (discovery runs in the
# background, so the prompt does not wait for it). For comparison, the time
# of `ikigai tool list`, which discovers the tools before printing.
#
#   bench/repl.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
out="$PWD/bench/out/repl"
rm -rf "$out"
mkdir -p "$out/home" "$out/project"
cc -O2 -o "$out/repl_startup" bench/repl_startup.c -lutil

runs=${RUNS:-30}
cd "$out/project"
env -i PATH="$PATH" HOME="$out/home" TERM=xterm-256color LANG=C.UTF-8 OPENAI_API_KEY=bench \
  "$out/repl_startup" 3 "$ikigai" > /dev/null  # warm the page cache
env -i PATH="$PATH" HOME="$out/home" TERM=xterm-256color LANG=C.UTF-8 OPENAI_API_KEY=bench \
  "$out/repl_startup" "$runs" "$ikigai" > "$out/prompt-ms.txt"
list_ms=$(python3 - "$ikigai" "$out/home" <<'PY'
import os, statistics, subprocess, sys, time
env = {"PATH": os.environ["PATH"], "HOME": sys.argv[2]}
times = []
for _ in range(30):
    start = time.perf_counter()
    subprocess.run([sys.argv[1], "tool", "list"], env=env, stdout=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.2f}")
PY
)
tools=$(env -i PATH="$PATH" HOME="$out/home" "$ikigai" tool list | grep -c '^  ')
python3 - "$out/prompt-ms.txt" "$list_ms" "$tools" <<'PY'
import statistics, sys
times = [float(line) for line in open(sys.argv[1])]
median = statistics.median(times)
print(f"start of ikigai to its prompt ({sys.argv[3]} tools, {len(times)} runs): median {median:6.2f} ms, "
      f"min {min(times):.2f}, max {max(times):.2f}  (goal < 30 ms): {'met' if median < 30 else 'MISSED'}")
print(f"for comparison, ikigai tool list (discovery first):          median {float(sys.argv[2]):6.2f} ms")
PY
