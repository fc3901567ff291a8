#!/usr/bin/env bash
# Issue 15's benchmark: web_fetch's HTML-to-Markdown conversion against
# `pandoc -f html -t gfm` on the same 1 MB page, side by side in one run
# (hyperfine if installed, else a timed loop; medians either way).
#
# The page is generated (bench/make_web_page.py: a documentation page with
# navigation, scripts, code blocks, tables and lists); the converter runs
# through html_to_markdown_bench, which reads the file and converts it, so
# both sides pay for reading a file and starting a process.
#
#   bench/web-fetch.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ours="$PWD/$build/bin/html_to_markdown_bench"
[ -x "$ours" ] || { echo "build first: cmake --build $build --target html_to_markdown_bench" >&2; exit 1; }
command -v pandoc >/dev/null || { echo "needs pandoc (apt-get install pandoc)" >&2; exit 1; }

out="$PWD/bench/out"
mkdir -p "$out"
page="$out/web-page-1mb.html"
python3 bench/make_web_page.py 1000000 > "$page"
echo "page: $(wc -c < "$page") bytes of HTML"
echo "ikigai: $("$ours" "$page" | wc -c) bytes of Markdown; pandoc: $(pandoc -f html -t gfm "$page" | wc -c) bytes"

runs=${RUNS:-10}
if command -v hyperfine >/dev/null; then
  json="$out/hyperfine-web-fetch.json"
  hyperfine -N --style none --warmup 2 --runs "$runs" --export-json "$json" \
    -n ikigai "$ours $page" -n pandoc "pandoc -f html -t gfm -o /dev/null $page" > /dev/null
  ours_ms=$(jq '.results[0].median * 1000' "$json")
  pandoc_ms=$(jq '.results[1].median * 1000' "$json")
else
  median_ms() {  # median_ms COMMAND...: the median wall time of $runs runs
    local times=() start end
    for _ in $(seq "$runs"); do
      start=$(date +%s%N)
      "$@" > /dev/null
      end=$(date +%s%N)
      times+=($(((end - start) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] / 1000}'
  }
  "$ours" "$page" > /dev/null  # warm-up
  ours_ms=$(median_ms "$ours" "$page")
  pandoc_ms=$(median_ms pandoc -f html -t gfm "$page")
fi
printf 'converter\tmedian_ms\n' > "$out/web-fetch-results.tsv"
printf 'ikigai\t%.1f\npandoc -f html -t gfm\t%.1f\n' "$ours_ms" "$pandoc_ms" >> "$out/web-fetch-results.tsv"
column -t -s $'\t' "$out/web-fetch-results.tsv"
awk -v o="$ours_ms" -v p="$pandoc_ms" 'BEGIN {printf "pandoc / ikigai: %.1fx (goal: > 1)\n", p / o}'
