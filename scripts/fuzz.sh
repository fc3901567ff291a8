#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang and runs each for N
# seconds on a copy of its seed corpus (the repository's seeds are never
# changed). Fails on any crash, timeout, leak or sanitizer report, naming
# the target and the input that caused it.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (default: 10 s, every target)
# Environment: FUZZ_BUILD_DIR (build-fuzz), FUZZ_CC, FUZZ_CXX (clang-14 if
# installed, else clang), JOBS (build jobs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

seconds="${1:-10}"
shift || true
build="${FUZZ_BUILD_DIR:-build-fuzz}"
cc="${FUZZ_CC:-$(command -v clang-14 || echo clang)}"
cxx="${FUZZ_CXX:-$(command -v clang++-14 || echo clang++)}"

started=$SECONDS
cmake -S . -B "$build" -DIKIGAI_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}"
echo "fuzz: built in $((SECONDS - started)) s"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" _fuzz.cc)"); done
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/ikigai-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
artifacts="$root/$build/artifacts"
failed=()
for name in "${targets[@]}"; do
  binary="$build/fuzz/${name}_fuzz"
  corpus="$scratch/$name/corpus"
  rm -rf "$artifacts/$name"
  mkdir -p "$corpus" "$scratch/$name/tmp" "$artifacts/$name"
  cp -R "fuzz/corpus/$name/." "$corpus/"
  log="$artifacts/$name/log.txt"
  echo "fuzz: $name for ${seconds} s"
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: libFuzzer's
  # default. TMPDIR: where targets that need a file write it.
  if TMPDIR="$scratch/$name/tmp" "$binary" -max_total_time="$seconds" -detect_leaks=1 \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/$name/" "$corpus" >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$log" |
      sed "s/^/  /" || true
  else
    failed+=("$name")
    echo "fuzz: $name FAILED (log: $log)" >&2
    grep -E 'ERROR: |invariant broken|runtime error|terminate called|what\(\)' "$log" | head -n 5 | sed 's/^/  /' >&2 || true
    reproducer="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
    [ -n "$reproducer" ] && echo "  reproducer: $reproducer (run: $binary $reproducer)" >&2
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: clean (${#targets[@]} targets, ${seconds} s each, $((SECONDS - started)) s in all)"
