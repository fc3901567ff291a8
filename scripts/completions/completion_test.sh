#!/usr/bin/env bash
# The bash completion's test (CTest: completion): sources ikigai.bash and
# calls _ikigai with COMP_WORDS as bash would, against the built ikigai.
# Usage: completion_test.sh COMPLETION_SCRIPT IKIGAI_BIN_DIR
set -uo pipefail
script=$(realpath "$1")
bin_dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export HOME=$tmp/home XDG_CACHE_HOME=$tmp/cache PATH=$bin_dir:$PATH
mkdir -p "$HOME/.ikigai/tools" "$tmp/work/project" "$tmp/work/photos"
# A user tool: it must be offered after `tool show` and `tool call`.
cat >"$HOME/.ikigai/tools/finder-tool" <<'TOOL'
#!/bin/sh
if [ "$1" = "--schema" ]; then
  echo '{"name": "finder", "description": "Find things.", "parameters": {"type": "object", "properties": {}}}'
  exit 0
fi
cat >/dev/null
echo '{"output": "found"}'
TOOL
chmod +x "$HOME/.ikigai/tools/finder-tool"
touch "$tmp/work/my-tool" "$tmp/work/mystery.txt" "$tmp/work/prose.txt"
cd "$tmp/work" || exit 1

# shellcheck source=ikigai.bash
source "$script"

failures=0
# expect "WANTED (sorted, space-separated)" WORD... : the last word is the
# one being completed.
expect() {
  local wanted=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _ikigai
  local got
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
  got=${got% }
  if [[ $got == "$wanted" ]]; then
    echo "ok    [$*] -> $got"
  else
    echo "FAIL  [$*] -> '$got', wanted '$wanted'"
    failures=$((failures + 1))
  fi
}

expect "mcp tool trust untrust" ikigai ""
expect "serve" ikigai mcp ""
expect "--help --http" ikigai mcp serve --h
expect "ask auto auto-edit read-only unrestricted" ikigai mcp serve --permissions ""
expect "tool trust" ikigai t
expect "--permissions --prompt --provider" ikigai --p
expect "ask auto auto-edit read-only unrestricted" ikigai --permissions ""
expect "auto auto-edit" ikigai --permissions au
expect "auto auto-edit" ikigai --permissions = au
expect "ask auto auto-edit read-only unrestricted" ikigai -p hello --permissions =
expect "anthropic gemini openai" ikigai --provider ""
expect "json" ikigai -p hi --output j
expect "" ikigai --model ""
expect "" ikigai -p ""
expect "call check list show" ikigai tool ""
expect "call check" ikigai --trust tool c
expect "call check list show" ikigai --permissions auto tool ""
expect "file_edit file_read file_write finder" ikigai tool show "fi"
expect "finder" ikigai tool call fin
expect "glob grep" ikigai tool call --sandbox g
expect "--sandbox" ikigai tool call bash --s
expect "" ikigai tool show finder ""
expect "my-tool mystery.txt" ikigai tool check my
expect "my-tool mystery.txt" ikigai tool check my-tool my
expect "photos project" ikigai trust p
expect "project" ikigai untrust pr
expect "" ikigai trust project ""

if ((failures > 0)); then
  echo "$failures completion case(s) failed"
  exit 1
fi
echo "all completion cases passed"
