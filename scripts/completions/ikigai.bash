# bash completion for ikigai(1).                                 -*- sh -*-
# Installed as share/bash-completion/completions/ikigai; to try it from a
# checkout: source scripts/completions/ikigai.bash
#
# Completes the subcommands (trust, untrust, tool list|show|call|check, mcp
# serve), the
# flags and their values, tool names after `tool show|call` (from
# `ikigai tool list`, cheap thanks to the schema cache), directories after
# `trust|untrust` and files after `tool check`.

# The tools' names, one a line, from `ikigai tool list` run by the ikigai
# being completed ($1), with --trust when the command line has it ($2).
_ikigai_tool_names() {
  local cmd=$1 trust=$2 line
  # shellcheck disable=SC2088  # a literal ~/ typed on the command line
  [[ $cmd == "~/"* ]] && cmd=$HOME/${cmd#"~/"}
  local -a run=("$cmd" tool list)
  [[ -n $trust ]] && run=("$cmd" --trust tool list)
  command -v timeout >/dev/null 2>&1 && run=(timeout 5 "${run[@]}")
  # "Available tools:", then "  name (path)" lines, then "Debug: ..." lines.
  while IFS= read -r line; do
    [[ $line == "  "* ]] || continue
    line=${line#  }
    [[ $line == "(none)" ]] && continue
    printf '%s\n' "${line%% (*}"
  done < <("${run[@]}" 2>/dev/null </dev/null)
}

# Saved session ids for --resume (the newest first).
_ikigai_session_ids() {
  local dir=${HOME:-.}/.ikigai/sessions f
  [[ -d $dir ]] || return 0
  for f in $(command ls -t "$dir" 2>/dev/null); do
    [[ $f == *.jsonl ]] && printf '%s\n' "${f%.jsonl}"
  done
}

_ikigai() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local prev=""
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()

  # --flag=value: bash splits it at '=' (COMP_WORDBREAKS), as "--flag" "=" "value".
  if [[ $cur == "=" && $prev == --* ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    cur=""
  elif [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  fi

  # The values of the top-level flags that take one.
  case $prev in
    --permissions)
      mapfile -t COMPREPLY < <(compgen -W "read-only ask auto-edit auto unrestricted" -- "$cur")
      return 0 ;;
    --provider)
      mapfile -t COMPREPLY < <(compgen -W "openai anthropic gemini" -- "$cur")
      return 0 ;;
    --output)
      mapfile -t COMPREPLY < <(compgen -W "text json" -- "$cur")
      return 0 ;;
    --model)
      return 0 ;;  # any name the provider knows
    --http)
      return 0 ;;  # [HOST:]PORT
    --resume)
      if [[ $cur != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_ikigai_session_ids)" -- "$cur")
        # An id is optional: `--resume tool ...` is not an id.
        [[ -z $cur ]] && COMPREPLY+=(trust untrust tool mcp)
        return 0
      fi ;;
    -p|--prompt)
      [[ $cur != -* ]] && return 0 ;;  # the prompt itself
  esac

  # Where are we: the subcommand path, and the words after it.
  local -a path=() args=()
  local trust="" i word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if ((${#path[@]} == 0)); then
      case $word in
        --permissions|--provider|--output|--model) ((i++)) ;;
        --trust) trust=1 ;;
        trust|untrust|tool|mcp) path=("$word") ;;
      esac
    elif [[ ${path[0]} == tool && ${#path[@]} == 1 ]]; then
      case $word in
        list|show|call|check) path+=("$word") ;;
      esac
    elif [[ ${path[0]} == mcp && ${#path[@]} == 1 ]]; then
      case $word in
        serve) path+=("$word") ;;
      esac
    elif [[ $word != -* ]]; then
      args+=("$word")
    fi
  done

  case "${path[*]}" in
    "")
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "-p --prompt --output --provider --model --resume
          --permissions --max-rounds --trust --version -V --help -h" -- "$cur")
      else
        mapfile -t COMPREPLY < <(compgen -W "trust untrust tool mcp" -- "$cur")
      fi ;;
    trust|untrust)
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "--help" -- "$cur")
      elif ((${#args[@]} == 0)); then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      fi ;;
    tool)
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "--help" -- "$cur")
      else
        mapfile -t COMPREPLY < <(compgen -W "list show call check" -- "$cur")
      fi ;;
    "tool list")
      [[ $cur == -* ]] && mapfile -t COMPREPLY < <(compgen -W "--help" -- "$cur") ;;
    "tool show")
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "--help" -- "$cur")
      elif ((${#args[@]} == 0)); then
        mapfile -t COMPREPLY < <(compgen -W "$(_ikigai_tool_names "${COMP_WORDS[0]}" "$trust")" -- "$cur")
      fi ;;
    "tool call")
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "--sandbox --help -" -- "$cur")
      elif ((${#args[@]} == 0)); then
        mapfile -t COMPREPLY < <(compgen -W "$(_ikigai_tool_names "${COMP_WORDS[0]}" "$trust")" -- "$cur")
      fi ;;  # then ARGS: a JSON object, or - for stdin
    mcp)
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "--help" -- "$cur")
      else
        mapfile -t COMPREPLY < <(compgen -W "serve" -- "$cur")
      fi ;;
    "mcp serve")
      [[ $cur == -* ]] &&
        mapfile -t COMPREPLY < <(compgen -W "--http --permissions --trust --help" -- "$cur") ;;
    "tool check")
      if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "--help" -- "$cur")
      else
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      fi ;;
  esac
  return 0
}

complete -F _ikigai ikigai
