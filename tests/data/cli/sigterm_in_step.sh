#!/bin/sh
# sigterm_in_step.sh AGGLO EXAMPLES DIR [MS]: SIGTERM inside a step that lasts (a DLCA step of
# persistence 0.01, a projection that never converges) ends the run within 2 s with status 143
# and a restart point (MS: the bound in milliseconds, 2000 by default); --resume then gives the
# uninterrupted run's files.
exe=$1
examples=$2
dir=$3
allowed=${4:-2000}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1

ms() { date +%s%N | cut -c1-13; }
# term OUT ARGS...: start the run, SIGTERM it $delay s after stats.csv has $rows lines (2: the
# step 0 row, the run has begun); prints the status and the milliseconds from the signal to the
# exit
rows=2
delay=1
term() {
  out=$1
  shift
  "$exe" run "$@" -o "$out" --quiet > "$out.log" 2>&1 &
  pid=$!
  i=0
  while [ "$(cat "$out/stats.csv" 2>/dev/null | wc -l)" -lt $rows ]; do
    i=$((i + 1))
    [ $i -gt 2400 ] && { echo "$out: run did not reach its row $rows in 120 s"; kill -KILL $pid; exit 1; }
    sleep 0.05
  done
  sleep $delay
  t0=$(ms)
  kill -TERM $pid
  wait $pid
  rc=$?
  t1=$(ms)
  echo "$out: exit status $rc, $((t1 - t0)) ms after SIGTERM"
  [ $rc -eq 143 ] || { cat "$out.log"; echo "$out: exit status $rc, expected 143"; exit 1; }
  [ $((t1 - t0)) -lt "$allowed" ] || { echo "$out: stopped $((t1 - t0)) ms after SIGTERM (allowed: $allowed)"; exit 1; }
  grep -q 'stopped by signal 15' "$out.log" || { cat "$out.log"; echo "$out: no 'stopped by signal'"; exit 1; }
  [ -s "$out/state.xyz" ] || { echo "$out: no restart point"; exit 1; }
}
same() {
  for f in trajectory.xyz stats.csv state.xyz contacts.txt; do
    cmp "$1/$f" "$2/$f" || { echo "$2/$f differs from the uninterrupted run's"; exit 1; }
  done
}

# 1. the issue's DLCA case: its first step alone lasts minutes
term dlca_long "$examples/dlca_3d.ini" -s dlca.persistence=0.01
# 2. a smaller one with steps of a fraction of a second: killed inside one, resumed
small="-s dlca.persistence=0.03 -s particles.n=100 -s dlca.clusters=50"
"$exe" run "$examples/dlca_3d.ini" $small -o dlca_ref --quiet || exit 1
term dlca_small "$examples/dlca_3d.ini" $small
"$exe" run --resume dlca_small --quiet || { echo "dlca_small: --resume failed"; exit 1; }
same dlca_ref dlca_small
# 3. a projection that never converges (tolerance 1e-300, a cap of 1e9 iterations), resumed
#    with the default solver: the plain run's files
stall="-s particles.n=200 -s run.t_end=0.2"
"$exe" run $stall -o stall_ref --quiet || exit 1
term stall $stall -s solver.tol=1e-300 -s solver.max_iter=1000000000 -s solver.method=apgd
"$exe" run --resume stall --quiet -s solver.tol=1e-3 -s solver.max_iter=20000 -s solver.method=mprgp ||
  { echo "stall: --resume failed"; exit 1; }
# (a build whose rounding lets step 1 reach a residual of exactly 0, as the sanitized one does,
# finishes it under the stalled settings: then only that row's solver counts, columns 7 and 8,
# are the other solver's)
for f in trajectory.xyz state.xyz contacts.txt; do
  cmp "stall_ref/$f" "stall/$f" || { echo "stall/$f differs from the uninterrupted run's"; exit 1; }
done
cut -d, -f1-6,9- stall_ref/stats.csv > stall_ref.rows && cut -d, -f1-6,9- stall/stats.csv > stall.rows &&
  cmp stall_ref.rows stall.rows || { echo "stall/stats.csv differs from the uninterrupted run's"; exit 1; }
# 4. a contact run whose steps are mostly projection (Uzawa, 5000 particles): stopped inside a
#    step with a contact set and multipliers to put back, resumed. The signal comes 0.1 s after
#    the row of step 12 (14 lines) is written, inside step 13 (1978 iterations, about 0.25 s
#    unloaded, longer under load), whatever the load: SIGTERM 1 s after the start fell, on a
#    loaded machine, in the first steps, of a few ms, as often between two steps as in one
busy="-s particles.n=5000 -s box.size=2 -s run.t_end=0.4 -s output.snapshots= -s output.stats_interval=0.02 -s solver.method=uzawa"
"$exe" run $busy -o busy_ref --quiet || exit 1
rows=14
delay=0.1
term busy $busy
grep -q 'given up' busy.log || { cat busy.log; echo "busy: not stopped inside a step"; exit 1; }
"$exe" run --resume busy --quiet || { echo "busy: --resume failed"; exit 1; }
same busy_ref busy
echo "stopped inside the step each time; resumed runs equal the uninterrupted ones"
