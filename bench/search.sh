#!/usr/bin/env bash
# Issue 3's benchmark: grep-tool against ripgrep and GNU grep, glob-tool
# against fd and find, side by side in one run (hyperfine, medians of
# repeated runs, page cache warm).
#
# Corpus: /usr/include after `apt-get install libboost-dev` (about 22,000
# files, 300 MB), copied to bench/out/corpus and made a git repository.
#
#   bench/search.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scripts/install-deps.sh bench
grep_tool="$PWD/$build/libexec/ikigai/grep-tool"
glob_tool="$PWD/$build/libexec/ikigai/glob-tool"
[ -x "$grep_tool" ] && [ -x "$glob_tool" ] || { echo "build first: make build" >&2; exit 1; }

out="$PWD/bench/out"
corpus="$out/corpus"
if [ ! -d "$corpus/.git" ]; then
  rm -rf "$corpus"
  cp -r /usr/include "$corpus"
  git -C "$corpus" init -q
  git -C "$corpus" add -A
  git -C "$corpus" -c user.name=bench -c user.email=bench@localhost commit -qm corpus
fi
echo "corpus: $(find "$corpus" -type f -not -path '*/.git/*' | wc -l) files, $(du -sh --exclude=.git "$corpus" | cut -f1)"
find "$corpus" -type f -not -path '*/.git/*' -exec cat {} + > /dev/null  # warm the page cache

runs=${RUNS:-10}
results=()
# compare NAME PEER... : runs the commands given as "label=command" pairs;
# the first is ours.
compare() {
  local name=$1
  shift
  local args=() json="$out/hyperfine-$name.json"
  for pair in "$@"; do args+=(-n "${pair%%=*}" "${pair#*=}"); done
  hyperfine -i -S bash --style none --warmup 2 --runs "$runs" --export-json "$json" "${args[@]}" > /dev/null
  jq -r --arg case "$name" '.results as $r | $r[0].median as $ours |
      $r[] | [$case, .command, (.median * 1000 | floor), ((.median / $ours) * 100 | floor) / 100] | @tsv' "$json"
}

args_file() {  # args_file NAME JSON
  printf '%s' "$2" > "$out/$1.json"
  echo "$out/$1.json"
}

printf 'case\tcommand\tmedian_ms\tmedian/ours\n' > "$out/search-results.tsv"
{
  a=$(args_file literal "{\"pattern\": \"BOOST_ASSERT\", \"path\": \"$corpus\", \"output_mode\": \"count\"}")
  compare literal "grep-tool=$grep_tool < $a" "rg=rg -c BOOST_ASSERT $corpus" \
    "grep -r=grep -rc BOOST_ASSERT $corpus"
  a=$(args_file regex "{\"pattern\": \"template\\\\s*<\\\\s*class\\\\s+\\\\w+\", \"path\": \"$corpus\", \"output_mode\": \"count\"}")
  compare regex "grep-tool=$grep_tool < $a" "rg=rg -c 'template\\s*<\\s*class\\s+\\w+' $corpus" \
    "grep -r=grep -rcE 'template\\s*<\\s*class\\s+\\w+' $corpus"
  a=$(args_file ignore-case "{\"pattern\": \"noexcept\", \"ignore_case\": true, \"path\": \"$corpus\", \"output_mode\": \"count\"}")
  compare ignore-case "grep-tool=$grep_tool < $a" "rg=rg -c -i noexcept $corpus" \
    "grep -r=grep -rci noexcept $corpus"
  a=$(args_file no-match "{\"pattern\": \"ZZQX_never_matches_42\", \"path\": \"$corpus\"}")
  compare no-match "grep-tool=$grep_tool < $a" "rg=rg ZZQX_never_matches_42 $corpus" \
    "grep -r=grep -r ZZQX_never_matches_42 $corpus"
  a=$(args_file glob "{\"pattern\": \"**/*.hpp\", \"path\": \"$corpus\"}")
  compare glob "glob-tool=$glob_tool < $a" "fd=fdfind -e hpp . $corpus" \
    "find=find $corpus -name '*.hpp'"
} | tee -a "$out/search-results.tsv" | awk -F'\t' '
  { printf "%-12s %-10s %7.0f ms   %5.2fx ours\n", $1, $2, $3, $4 }'

# Goals: each peer's median/ours ratio is the inverse of ours/peer.
awk -F'\t' 'NR > 1 && ($2 == "rg" || $2 == "fd") {
    ratio = 1 / $4; ok = ratio <= 1.25 ? "met" : "MISSED"
    printf "goal %-12s ours/%s = %.2f (at most 1.25): %s\n", $1, $2, ratio, ok }
  NR > 1 && $2 == "grep -r" {
    ok = $4 > 1 ? "met" : "MISSED"
    printf "goal %-12s faster than GNU grep (%.2fx): %s\n", $1, $4, ok }' "$out/search-results.tsv"
