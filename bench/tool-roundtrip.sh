#!/usr/bin/env bash
# Issue 2's benchmark: the round trip of one file-read-tool call on a small
# file beside the floor (a minimal static C program that reads stdin and
# writes {}), measured in the same run, interleaved in rounds so that both
# see the same machine; and the peak memory of file-read-tool reading 100
# lines at line 10,000,000 of a generated 1 GB text file.
#
#   bench/tool-roundtrip.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tool="$build/libexec/ikigai/file-read-tool"
[ -x "$tool" ] || { echo "build first: make build" >&2; exit 1; }
out=bench/out
mkdir -p "$out"
cc -O2 -o "$out/roundtrip" bench/roundtrip.c
cc -O2 -static -o "$out/floor" bench/floor.c

printf 'line one\nline two\nline three\n' > "$out/small.txt"
printf '{"file_path": "%s"}' "$PWD/$out/small.txt" > "$out/read-small.json"
printf '{}' > "$out/empty.json"

calls=${CALLS:-1000}
rounds=${ROUNDS:-5}
tool_medians=() floor_medians=()
for r in $(seq 1 "$rounds"); do
  f=$("$out/roundtrip" "$calls" "$out/empty.json" "$out/floor")
  t=$("$out/roundtrip" "$calls" "$out/read-small.json" "$tool")
  floor_medians+=("$(jq .median_ms <<<"$f")")
  tool_medians+=("$(jq .median_ms <<<"$t")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fm=$(median "${floor_medians[@]}")
tm=$(median "${tool_medians[@]}")
echo "round trip, median of $rounds rounds x $calls calls:"
printf '  floor (static C, reads stdin, writes {})  %.3f ms\n' "$fm"
printf '  file-read-tool, small file               %.3f ms\n' "$tm"
awk -v t="$tm" -v f="$fm" 'BEGIN {printf "  ratio tool/floor                         %.2f  (goal <= 1.5)\n", t / f}'

big="$out/big.txt"
if [ ! -s "$big" ]; then
  echo "generating $big (1 GB, 10.2 M lines of 101 bytes)..."
  seq -f '%0100.0f' 1 10200000 > "$big"
fi
printf '{"file_path": "%s", "offset": 10000000, "limit": 100}' "$PWD/$big" > "$out/read-deep.json"
cat "$big" > /dev/null  # warm the page cache so the timing is of the tool, not the disk
deep=$(ROUNDTRIP_SHOW=1 "$out/roundtrip" 3 "$out/read-deep.json" "$tool" 2>"$out/deep-answer.txt")
grep -q '"output":"0*10000000\\n' "$out/deep-answer.txt" || { echo "wrong deep answer" >&2; exit 1; }
echo "file-read-tool, 100 lines at line 10,000,000 of a 1 GB file:"
printf '  wall %.1f ms, peak memory %d KB  (goal < 16384 KB)\n' \
  "$(jq .median_ms <<<"$deep")" "$(jq .max_rss_kb <<<"$deep")"
