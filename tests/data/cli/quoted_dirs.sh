#!/bin/sh
# quoted_dirs.sh AGGLO DIR: every command that starts gnuplot or ffmpeg, given directories named
# like a shell (and gnuplot) injection, writes its files inside them and nowhere else.
exe=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
q="x'; touch pwned; '"
"$exe" run -o "$q" --quiet -s particles.n=200 -s run.t_end=0.3 -s output.snapshots= || fail "run"
"$exe" ensemble -s particles.n=60 -s run.t_end=0.1 --seeds 1-2 --vary particles.n=60,80 \
  -o "$q/ens" --quiet || fail "ensemble"
ls -A > before.txt
"$exe" analyze "$q/trajectory.xyz" --plots -o "$q/an" > /dev/null || fail "analyze --plots"
for p in n_clusters size_distribution rg_size pair_distribution; do
  [ -s "$q/an/$p.png" ] || fail "analyze: $p.png missing"
done
"$exe" plot "$q" -o "$q/plots" > /dev/null || fail "plot RUN_DIR"
[ -s "$q/plots/clusters.png" ] || fail "plot RUN_DIR: clusters.png missing"
"$exe" plot "$q/ens" -y n_clusters 2> /dev/null || fail "plot ensemble"
[ -s "$q/ens/plot_n_clusters.png" ] || fail "plot ensemble: plot_n_clusters.png missing"
"$exe" plot "$q/ens" -y n_clusters -o "$q/ens/it's.png" 2> /dev/null || fail "plot ensemble -o"
[ -s "$q/ens/it's.png" ] || fail "plot ensemble -o: the picture is missing"
if command -v ffmpeg > /dev/null; then
  "$exe" movie "$q" -o "$q/m.mp4" --quiet || fail "movie"
  [ -s "$q/m.mp4" ] || fail "movie: m.mp4 missing"
fi
ls -A > after.txt
[ -z "$(find . -name pwned)" ] || fail "a command ran: $(find . -name pwned)"
echo after.txt >> before.txt
sort before.txt > b.txt && sort after.txt | diff b.txt - | grep -v '^[0-9]' | grep -q . &&
  fail "files outside the directory: $(sort after.txt | diff b.txt -)"
echo "no shell, nothing outside"
