#!/bin/sh
# The manual pages of agglo, made from its --help texts (so they say what the program says):
#   scripts/gen-man.sh AGGLO OUTDIR  ->  OUTDIR/agglo.1 and OUTDIR/agglo-COMMAND.1 for each command
# Run by the build (CMakeLists.txt); installed into share/man/man1 (`man agglo`, `man agglo-run`).
set -eu
agglo=$1 out=$2
mkdir -p "$out"
version=$("$agglo" --version | sed 's/^agglo //')
# roff: a backslash is \e; a line starting with . or ' would be a request: \& before it
escape() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
page() { # page NAME SUMMARY TEXT-COMMAND...
  name=$1 summary=$2; shift 2
  upper=$(echo "$name" | tr a-z A-Z)
  {
    printf '.TH %s 1 "" "agglo %s" "User Commands"\n.SH NAME\n%s \\- %s\n.SH DESCRIPTION\n.nf\n' \
      "$upper" "$version" "$name" "$summary"
    "$@" | escape
    printf '.fi\n.SH SEE ALSO\n'
    if [ "$name" = agglo ]; then
      printf 'agglo\\-run(1), agglo\\-analyze(1), agglo\\-convert(1), agglo\\-list(1), agglo\\-ensemble(1),\n'
      printf 'agglo\\-plot(1), agglo\\-render(1), agglo\\-movie(1), agglo\\-compare(1), agglo\\-agglomerates(1),\n'
      printf 'agglo\\-aggregate(1);\n'
    else
      printf 'agglo(1);\n'
    fi
    printf 'the documentation in docs/ of the source tree (README.md lists it).\n'
  } > "$out/$name.1"
}
page agglo "direct simulation of particle aggregation" "$agglo" --help
page agglo-run "run a scenario (every scenario key)" "$agglo" run --help
page agglo-analyze "cluster statistics, fractal dimensions, g(r), MSD, plots of a trajectory" "$agglo" analyze --help
page agglo-convert "a trajectory between extended XYZ and H5MD" "$agglo" convert --help
page agglo-list "models, flows, solvers, example scenarios, scenario keys" "$agglo" list --help
page agglo-ensemble "a scenario over seeds and varied keys" "$agglo" ensemble --help
page agglo-plot "a run's or an ensemble's statistics against time (gnuplot)" "$agglo" plot --help
page agglo-render "pictures of trajectory frames" "$agglo" render --help
page agglo-movie "every frame of a trajectory drawn and encoded by ffmpeg" "$agglo" movie --help
page agglo-compare "ballistic aggregation: time stepping against event driven over seeds" "$agglo" compare --help
page agglo-agglomerates "the DPD agglomerate report of a frame" "$agglo" agglomerates --help
page agglo-aggregate "aggregates of prescribed fractal dimension and prefactor (tunable PC / CC)" "$agglo" aggregate --help
