#!/bin/sh
# The conformance suite's client scenarios (initialize, tools_call,
# sse-retry) against ikigai's own MCP client, as a user would use it: the
# suite runs `conformance_client.sh URL`; the server at URL becomes
# mcp_servers.conformance in a HOME of its own, `ikigai tool list` connects
# and lists, and each tool it found is called (add_numbers with a and b).
# IKIGAI_BIN is the ikigai to run.
set -eu
url=$1
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/.ikigai" "$home/project"
printf '{"mcp_servers": {"conformance": {"url": "%s"}}}\n' "$url" > "$home/.ikigai/config.json"
cd "$home/project"
export HOME="$home"
listing=$("$IKIGAI_BIN" tool list)
for tool in $(printf '%s\n' "$listing" | grep -o 'mcp__conformance__[A-Za-z0-9_-]*' | sort -u); do
  case $tool in
    *add_numbers) arguments='{"a": 2, "b": 3}' ;;
    *) arguments='{}' ;;
  esac
  "$IKIGAI_BIN" tool call "$tool" "$arguments"
done
