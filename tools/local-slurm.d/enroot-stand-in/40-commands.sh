# shellcheck shell=bash
# The Enroot stand-in, part 4 of 4: the command line.

[[ $# -ge 1 ]] || usage help 1
command=$1
shift
case $command in
  create) cmd_create "$@" ;;
  start) cmd_start "$@" ;;
  remove) cmd_remove "$@" ;;
  version) printf '%s\n' "$version" ;;
  batch | bundle | digest | exec | export | import | list | load | info)
    not_here "'$command' is a command of Enroot that this stand-in does not implement" ;;
  *) usage help 1 ;;
esac
