#!/usr/bin/env bash
# The MCP conformance suite's server scenarios against `ikigai mcp serve
# --http`, with the test tools (testing/tools/) as the user's tools in a
# home of their own; the scenarios ikigai does not implement are listed in
# conformance-expected-failures.yml.
#
#   conformance.sh IKIGAI_BIN NODE22 CONFORMANCE_JS [SCENARIO]
set -euo pipefail
ikigai=$(realpath "$1") node=$(realpath "$2") suite=$(realpath "$3") scenario=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
home=$(mktemp -d "${TMPDIR:-/tmp}/ikigai-mcp-conformance.XXXXXX")
server=
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$home"
}
trap cleanup EXIT
mkdir -p "$home/.ikigai/tools" "$home/work" "$home/tmp"
for tool in "$here"/tools/*-tool; do ln -s "$tool" "$home/.ikigai/tools/"; done

HOME=$home TMPDIR=$home/tmp "$ikigai" mcp serve --http 127.0.0.1:0 \
  > "$home/stdout" 2> "$home/stderr" < /dev/null &
server=$!
url=
for _ in $(seq 1 600); do  # up to a minute: discovery runs first
  url=$(sed -n 's/.*listening on \(http:[^ ]*\/mcp\).*/\1/p' "$home/stderr")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "ikigai mcp serve --http did not start:" >&2
  cat "$home/stderr" >&2
  exit 1
fi
args=(server --url "$url" --expected-failures "$here/conformance-expected-failures.yml"
      -o "$home/results")
# "all": the active scenarios and the pending ones (json-schema-2020-12, server-sse-polling).
[ -z "$scenario" ] && args+=(--suite all)
[ -n "$scenario" ] && args+=(--scenario "$scenario")
cd "$home/work"
status=0
"$node" "$suite" "${args[@]}" || status=$?
exit "$status"
