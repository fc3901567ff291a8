#!/usr/bin/env bash
# The man page's test (CTest: manpage): docs/ikigai.1 renders without a
# warning, and names every subcommand and flag that `ikigai --help` (and each
# subcommand's --help) lists, every REPL command and every environment
# variable of the configuration, so the page cannot drift from the program.
# Usage: check-manpage.sh IKIGAI_BIN MAN_PAGE SOURCE_DIR
set -euo pipefail
bin=$1
page=$2
src=$3
failures=0
fail() {
  echo "FAIL  $*"
  failures=$((failures + 1))
}

# 1. No warning from groff (-ww: all of them), as `man -l` would render it.
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff exited with an error"
[[ -z $warnings ]] || fail "groff warnings:"$'\n'"$warnings"

# The page as plain text, each paragraph on one line (nothing hyphenated or
# broken), hyphens as ASCII.
text=$(groff -man -Tascii -rLL=2000n -P-c -P-b -P-u "$page" 2>/dev/null)
mentions() { grep -qE -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|$)" <<<"$text"; }

# 2. Every subcommand and flag of --help, recursively. CLI11 lists them as
#   OPTIONS:
#     -h,--help    ...
#     -p,--prompt TEXT ...
#   SUBCOMMANDS:
#     trust        ...
checked=0
check_help() {
  local -a path=("$@")
  local help section="" line word flag
  help=$("$bin" "${path[@]}" --help 2>&1) || { fail "ikigai ${path[*]} --help failed"; return; }
  local -a subcommands=()
  while IFS= read -r line; do
    case $line in
      [A-Z]*:) section=${line%:} section=${section^^}; continue ;;
      "  "[!\ ]*) ;;
      *) continue ;;
    esac
    word=${line#  }
    word=${word%% *}
    case $section in
      OPTIONS)
        IFS=, read -ra flags <<<"$word"
        for flag in "${flags[@]}"; do
          [[ $flag == -* ]] || continue
          checked=$((checked + 1))
          mentions "$flag" || fail "flag $flag (ikigai ${path[*]} --help) is not in the man page"
        done ;;
      SUBCOMMANDS)
        subcommands+=("$word") ;;
    esac
  done <<<"$help"
  for word in "${subcommands[@]}"; do
    checked=$((checked + 1))
    # Each subcommand has its own line in the synopsis: "ikigai tool show ...".
    grep -qE -- "^ *ikigai ${path[*]:+${path[*]} }$word( |$)" <<<"$text" ||
      fail "subcommand 'ikigai ${path[*]:+${path[*]} }$word' is not in the man page's synopsis"
    check_help "${path[@]}" "$word"
  done
}
check_help
((checked >= 15)) || fail "only $checked flags and subcommands found in --help: has its format changed?"

# 3. Every REPL command (src/repl/commands.cc) and environment variable
# (src/config/keys.cc).
mapfile -t commands < <(grep -oE '"/[a-z]+' "$src/src/repl/commands.cc" | tr -d '"' | sort -u)
mapfile -t variables < <(grep -oE '\.env = "[A-Z_]+"' "$src/src/config/keys.cc" |
  sed -E 's/.*"(.*)"/\1/' | sort -u)
((${#commands[@]} >= 5)) || fail "only ${#commands[@]} REPL commands found in commands.cc"
((${#variables[@]} >= 5)) || fail "only ${#variables[@]} environment variables found in keys.cc"
for name in "${commands[@]}" "${variables[@]}" XDG_CACHE_HOME NO_COLOR HOME; do
  checked=$((checked + 1))
  mentions "$name" || fail "$name is not in the man page"
done

if ((failures > 0)); then
  echo "$failures problem(s) with $page"
  exit 1
fi
echo "ok: $page renders without warnings and names all $checked subcommands, flags, commands and variables"
