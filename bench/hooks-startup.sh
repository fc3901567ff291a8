#!/usr/bin/env bash
# Issue 16's hook half: what 20 configured hooks (none of them SessionStart,
# which runs with the first message) add to the start of `ikigai` to its
# prompt. Hooks cost only their configuration's reading until an event
# fires; this measures that the start stays where it was.
#
#   bench/hooks-startup.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
out="$PWD/bench/out/hooks"
rm -rf "$out"
mkdir -p "$out/none/.ikigai" "$out/twenty/.ikigai" "$out/project"
cc -O2 -o "$out/repl_startup" bench/repl_startup.c -lutil
python3 - "$out/twenty/.ikigai/config.json" <<'PY'
import json, sys
events = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"]
hooks = {e: [{"matcher": "bash|file_write" if "Tool" in e else "", "command": f"./hooks/{e}-{i}.sh",
              "timeout_ms": 5000} for i in range(5)] for e in events}
json.dump({"hooks": hooks}, open(sys.argv[1], "w"), indent=1)
PY

runs=${RUNS:-30}
cd "$out/project"
for home in none twenty; do
  env -i PATH="$PATH" HOME="$out/$home" TERM=xterm-256color LANG=C.UTF-8 OPENAI_API_KEY=bench \
    "$out/repl_startup" 3 "$ikigai" > /dev/null  # warm the page cache
  env -i PATH="$PATH" HOME="$out/$home" TERM=xterm-256color LANG=C.UTF-8 OPENAI_API_KEY=bench \
    "$out/repl_startup" "$runs" "$ikigai" > "$out/$home-ms.txt"
done
python3 - "$out/none-ms.txt" "$out/twenty-ms.txt" <<'PY'
import statistics, sys
none = [float(l) for l in open(sys.argv[1])]
twenty = [float(l) for l in open(sys.argv[2])]
for name, times in (("no hooks", none), ("20 hooks", twenty)):
    print(f"start of ikigai to its prompt, {name} ({len(times)} runs): median {statistics.median(times):6.2f} ms, "
          f"min {min(times):.2f}, max {max(times):.2f}")
print(f"20 hooks add {statistics.median(twenty) - statistics.median(none):+.2f} ms (median)")
PY
