#!/bin/sh
# grouped_flights.sh AGGLO EXAMPLE DIR: dlca.grouped_flights = on (a lone cluster's flights drawn
# ahead as one event, burst when a build finds it) and off (one event per flight) give the same
# trajectory.xyz and stats.csv, byte for byte (docs/dlca.md), and so do the margins that grouping
# turns on (each cluster's from its room): dense and dilute 3D, 2D, DLCA and RLCA, walls, rotation,
# a stop at run.t_end.
exe=$1 ini=$2 dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
same() {
  name=$1; shift
  for g in on off; do
    "$exe" run "$ini" -s output.snapshots= -s dlca.grouped_flights=$g "$@" -o "$dir/$name-$g" \
      --quiet || fail "$name: the run with grouped flights $g"
  done
  for f in trajectory.xyz stats.csv; do
    cmp -s "$dir/$name-on/$f" "$dir/$name-off/$f" || fail "$name: $f differs with grouped flights on and off"
  done
  echo "$name: the same bytes ($(tail -n 1 "$dir/$name-on/stats.csv" | cut -d, -f1,3))"
}
same dilute_3d -s particles.n=400 -s output.trajectory_interval=200
same dense_3d -s particles.n=300 -s particles.fraction=0.1 -s output.trajectory_interval=20
same rlca_3d -s particles.n=300 -s dlca.probability=0.1 -s output.trajectory_interval=200
same dilute_2d -s run.dim=2 -s particles.n=300 -s particles.fraction=0.01 -s output.trajectory_interval=200
same rlca_2d -s run.dim=2 -s particles.n=300 -s particles.fraction=0.05 -s dlca.probability=0.2 \
  -s output.trajectory_interval=100
same walls_3d -s particles.n=200 -s box.boundary=wall -s particles.fraction=0.01 -s output.trajectory_interval=100
same rotation_3d -s particles.n=200 -s dlca.rotation=on -s particles.fraction=0.01 -s output.trajectory_interval=100
same t_end_3d -s particles.n=200 -s dlca.stop=t_end -s run.t_end=777.7 -s output.trajectory_interval=100
# and so does the reach growing with the clusters (dlca.window_max; the default run above widens
# it twice): never (0) and further (12)
reach() {
  name=$1; shift
  for w in 0 12; do
    "$exe" run "$ini" -s output.snapshots= -s dlca.window_max=$w "$@" -o "$dir/$name-w$w" --quiet ||
      fail "$name: the run with dlca.window_max = $w"
    for f in trajectory.xyz stats.csv; do
      cmp -s "$dir/$name-on/$f" "$dir/$name-w$w/$f" || fail "$name: $f differs with dlca.window_max = $w"
    done
  done
  echo "$name: the same bytes with the reach grown or not"
}
reach dilute_3d -s particles.n=400 -s output.trajectory_interval=200
reach rlca_2d -s run.dim=2 -s particles.n=300 -s particles.fraction=0.05 -s dlca.probability=0.2 \
  -s output.trajectory_interval=100
reach rotation_3d -s particles.n=200 -s dlca.rotation=on -s particles.fraction=0.01 -s output.trajectory_interval=100
echo "grouped flights ok"
