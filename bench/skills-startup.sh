#!/usr/bin/env bash
# Issue 16's benchmark: start-up with 100 skills and 20 hooks stays under
# 30 ms to the prompt. The REPL in a pseudo-terminal, from exec to its prompt ("> "),
# with no skills and with 100 skills (each a SKILL.md with a folded
# description and a body; every other one with a tools/ folder, which is
# not run before the skill is loaded), split between ~/.ikigai/skills,
# ~/.agents/skills and a trusted project's ./.ikigai/skills. Prints the
# The 100-skill run also configures 20 hooks (five each of PreToolUse,
# PostToolUse, UserPromptSubmit and Stop: none runs before a message).
# Prints the medians, their difference and ratio, and whether the goal is met.
#
#   bench/skills-startup.sh [BUILD_DIR]      (default: build)
#
# EXTRA_CONFIG: a JSON object written to ~/.ikigai/config.json in the
# 100-skill run instead of the 20 hooks.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikigai="$PWD/$build/bin/ikigai"
[ -x "$ikigai" ] || { echo "build first: make build" >&2; exit 1; }
out="$PWD/bench/out/skills-startup"
rm -rf "$out"
mkdir -p "$out"
cc -O2 -o "$out/repl_startup" bench/repl_startup.c -lutil
runs=${RUNS:-30}

hooks=$(python3 -c '
import json
hook = {"matcher": "*", "command": "true", "timeout_ms": 5000}
print(json.dumps({"hooks": {event: [hook] * 5 for event in
                            ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"]}}))')

# setup DIR COUNT [CONFIG]: a home and a trusted project with COUNT skills.
setup() {
  local dir=$1 count=$2 config=${3:-} i root name
  mkdir -p "$dir/home/.ikigai" "$dir/project"
  [ -n "$config" ] && printf '%s\n' "$config" > "$dir/home/.ikigai/config.json"
  env -i PATH="$PATH" HOME="$dir/home" "$ikigai" trust "$dir/project" > /dev/null
  for ((i = 0; i < count; i++)); do
    case $((i % 3)) in
      0) root="$dir/home/.ikigai/skills" ;;
      1) root="$dir/home/.agents/skills" ;;
      2) root="$dir/project/.ikigai/skills" ;;
    esac
    name=$(printf 'bench-skill-%03d' "$i")
    mkdir -p "$root/$name"
    {
      printf -- '---\nname: %s\ndescription: >\n' "$name"
      printf '  Does task number %d of the benchmark: use it when the user asks\n' "$i"
      printf '  for that task, or for anything that looks like it.\nlicense: MIT\n---\n'
      printf '# %s\n\n' "$name"
      for ((line = 0; line < 40; line++)); do printf 'Step %d: do the thing carefully.\n' "$line"; done
    } > "$root/$name/SKILL.md"
    if ((i % 2 == 0)); then
      mkdir -p "$root/$name/tools"
      printf '#!/bin/sh\necho "{}"\n' > "$root/$name/tools/$name-tool"
      chmod +x "$root/$name/tools/$name-tool"
    fi
  done
}

measure() {  # DIR -> median ms, also written to DIR/prompt-ms.txt
  local dir=$1
  (cd "$dir/project" &&
    env -i PATH="$PATH" HOME="$dir/home" TERM=xterm-256color LANG=C.UTF-8 OPENAI_API_KEY=bench \
      "$out/repl_startup" 3 "$ikigai" > /dev/null &&
    env -i PATH="$PATH" HOME="$dir/home" TERM=xterm-256color LANG=C.UTF-8 OPENAI_API_KEY=bench \
      "$out/repl_startup" "$runs" "$ikigai" > "$dir/prompt-ms.txt")
}

setup "$out/none" 0
setup "$out/hundred" 100 "${EXTRA_CONFIG:-$hooks}"
measure "$out/none"
measure "$out/hundred"
# CPU time (user + system) of a whole start and /quit with piped input:
# what the skills cost, unlike the wall clock, does not depend on how busy
# the machine is.
cpu() {  # DIR -> median ms of CPU
  python3 - "$ikigai" "$1" "$runs" <<'PY'
import os, resource, statistics, subprocess, sys
ikigai, dir, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = {"PATH": os.environ["PATH"], "HOME": dir + "/home", "OPENAI_API_KEY": "bench"}
times = []
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([ikigai], input=b"/quit\n", env=env, cwd=dir + "/project",
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    times.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
print(f"{statistics.median(times):.2f}")
PY
}
cpu_none=$(cpu "$out/none")
cpu_hundred=$(cpu "$out/hundred")
found=$(cd "$out/hundred/project" && printf '/skills\n' |
  env -i PATH="$PATH" HOME="$out/hundred/home" OPENAI_API_KEY=bench "$ikigai" 2>/dev/null |
  grep -c '^  bench-skill-' || true)
python3 - "$out/none/prompt-ms.txt" "$out/hundred/prompt-ms.txt" "$found" "$cpu_none" "$cpu_hundred" <<'PY'
import statistics, sys
none = [float(line) for line in open(sys.argv[1])]
hundred = [float(line) for line in open(sys.argv[2])]
a, b = statistics.median(none), statistics.median(hundred)
print(f"start of ikigai to its prompt, no skills ({len(none)} runs):  median {a:6.2f} ms, min {min(none):.2f}")
print(f"start of ikigai to its prompt, {sys.argv[3]} skills, 20 hooks ({len(hundred)} runs): median {b:6.2f} ms, min {min(hundred):.2f}")
print(f"100 skills and 20 hooks cost {b - a:+.2f} ms ({b / a:.2f}x)  (goal: < 30 ms to the prompt): "
      f"{'met' if b < 30 else 'MISSED'}")
c0, c1 = float(sys.argv[4]), float(sys.argv[5])
print(f"CPU of a start and /quit (user + system, median): no skills {c0:.2f} ms, "
      f"{sys.argv[3]} skills {c1:.2f} ms: {c1 - c0:+.2f} ms ({c1 / c0:.2f}x)")
PY
