#!/bin/bash
# The installed manual pages and bash completion (tests/install.cmake, install_man_completion):
#   man_completion.sh PREFIX
set -u
prefix=$1
fail() { echo "FAIL: $*"; exit 1; }
export MANPATH=$prefix/share/man: PATH=$prefix/bin:$PATH MANPAGER=cat PAGER=cat
for page in agglo agglo-run agglo-analyze agglo-convert agglo-list agglo-ensemble agglo-plot \
            agglo-render agglo-movie agglo-compare agglo-agglomerates agglo-aggregate; do
  text=$(man "$page" 2>&1) || fail "man $page: $text"
  echo "$text" | grep -q "^NAME" || fail "man $page has no NAME section"
done
man agglo-run | grep -q -- "--restart DIR" || fail "man agglo-run lacks --restart"
man agglo-run | grep -q "t_end  *= 3" || fail "man agglo-run lacks the scenario keys"
man agglo | grep -q "agglo $(agglo --version | sed 's/^agglo //')" || fail "man agglo lacks the version"
source "$prefix/share/bash-completion/completions/agglo"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _agglo; echo "${COMPREPLY[*]}"; }
[ "$(complete_words agglo ense)" = ensemble ] || fail "command not completed"
[ "$(complete_words agglo run --res)" = "--restart --resume" ] || fail "options not completed: $(complete_words agglo run --res)"
[ "$(complete_words agglo run -s run.d)" = "run.dim= run.dt=" ] || fail "keys not completed: $(complete_words agglo run -s run.d)"
[ "$(complete_words agglo run maury_shear_p)" = maury_shear_periodic_x.ini ] || fail "examples not completed"
echo "man pages and completion: ok"
