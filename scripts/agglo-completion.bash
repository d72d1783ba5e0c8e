# bash completion of agglo: its commands, each command's options (read from `agglo CMD --help`,
# so they are the program's), scenario keys after -s and --vary (from `agglo list keys`), the
# shipped examples and files for a scenario. Installed as share/bash-completion/completions/agglo.

_agglo_keys() { # section.key of every scenario key, once per shell
  [ -n "${_agglo_key_list-}" ] ||
    _agglo_key_list=$("${1:-agglo}" list keys 2>/dev/null | sed -n 's/^| `\([a-z_0-9]*\.[a-z_0-9.]*\)` |.*/\1/p')
  printf '%s\n' "$_agglo_key_list"
}

_agglo() {
  local cur prev cmd prog=${COMP_WORDS[0]}
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "run analyze convert list ensemble plot render movie compare agglomerates aggregate --help --version" -- "$cur"))
    return
  fi
  cmd=${COMP_WORDS[1]}
  case $prev in
    -s | --vary)
      compopt -o nospace 2>/dev/null
      COMPREPLY=($(compgen -W "$(_agglo_keys "$prog" | sed 's/$/=/')" -- "$cur"))
      return ;;
    -o | --restart | --resume)
      COMPREPLY=($(compgen -d -- "$cur"))
      return ;;
  esac
  if [ "$cmd" = list ]; then
    COMPREPLY=($(compgen -W "keys --help" -- "$cur"))
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u) -s -o" -- "$cur"))
    return
  fi
  case $cmd in
    run | ensemble | compare) # a scenario file, or a shipped example by name
      COMPREPLY=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur")
        $(compgen -W "$("$prog" list 2>/dev/null | sed -n 's/^  \([a-z_0-9]*\.ini\) .*/\1/p')" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -F _agglo agglo
