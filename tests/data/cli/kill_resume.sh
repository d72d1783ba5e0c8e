#!/bin/sh
# kill_resume.sh AGGLO DIR: runs of the five models (ballistic time stepping and event driven)
# ended six times each, in turn by SIGKILL, SIGTERM and SIGINT (Ctrl-C; restart points every
# 0.09 s of wall clock), each time resumed with --resume, end with the same state.xyz, stats.csv
# and trajectory.xyz as the uninterrupted run. A SIGKILL resumes from the last restart point; a
# SIGTERM or SIGINT stops the run after its step, writing a restart point there and nothing off
# the output schedule.
exe=$1
ex=$(cd "$(dirname "$0")/../../../examples" && pwd)
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
kills=0
stops=0
check() { # name: the uninterrupted run's files against the resumed one's
  same=""
  for f in state.xyz stats.csv sizes.csv trajectory.xyz; do
    [ -e "$dir/$1.whole/$f" ] || continue # an HDF5 restart point is state.h5 (timestamped)
    cmp -s "$dir/$1.whole/$f" "$dir/$1.killed/$f" || { echo "$1: $f differs from the uninterrupted run"; exit 1; }
    same="$same $f"
  done
  echo "$1: resumed after $2 kills ($3 by SIGTERM or SIGINT), identical:$same"
}
run_case() { # name, then the scenario arguments
  name=$1
  shift
  "$exe" run "$@" -s output.snapshots= -s output.checkpoint_minutes=0.0015 -o "$dir/$name.whole" --quiet ||
    { echo "$name: the uninterrupted run failed"; exit 1; }
  "$exe" run "$@" -s output.snapshots= -s output.checkpoint_minutes=0.0015 -o "$dir/$name.killed" --quiet \
    2>> "$dir/$name.log" &
  pid=$!
  # the first kill once the run has written its scenario (before it, there is nothing to resume;
  # on a loaded machine the set-up alone can outlast the first delay)
  i=0
  while [ ! -e "$dir/$name.killed/scenario.ini" ]; do
    i=$((i + 1))
    [ $i -gt 6000 ] && { kill -KILL $pid; echo "$name: no scenario.ini after 60 s"; exit 1; }
    sleep 0.01
  done
  n=0
  s=0
  # end it six times (every SIGKILL lands after a restart point, so each resume gets further)
  for delay in 0.3 0.25 0.35 0.2 0.3 0.25 0.35 0.3 0.25 0.3; do
    [ $n -ge 6 ] && break
    sleep $delay
    kill -0 $pid 2>/dev/null || break
    sig=$(echo KILL TERM INT | cut -d' ' -f$((n % 3 + 1)))
    kill -$sig $pid
    wait $pid
    rc=$?
    # 143 / 130: stopped (or ended by the signal before the run began); 0: it had just finished
    case $sig:$rc in
    KILL:137 | TERM:143 | INT:130) [ $sig = KILL ] || s=$((s + 1)) ;;
    *:0) ;;
    *) echo "$name: exit status $rc after SIG$sig"; cat "$dir/$name.log"; exit 1 ;;
    esac
    n=$((n + 1))
    "$exe" run --resume "$dir/$name.killed" --quiet 2>> "$dir/$name.log" &
    pid=$!
  done
  wait $pid || { echo "$name: the last resumed run failed"; cat "$dir/$name.log"; exit 1; }
  [ -e "$dir/$name.killed/state.xyz.new" ] && { echo "$name: state.xyz.new left behind"; exit 1; }
  kills=$((kills + n))
  stops=$((stops + s))
  check "$name" $n $s
}
# contact: stats rows every 3 steps, so a stop between rows carries the solver's iterations over
run_case contact -s particles.n=2000 -s run.t_end=10 -s run.seed=3 -s output.stats_interval=0.06
run_case contact_h5 -s particles.n=2000 -s run.t_end=10 -s run.seed=4 -s output.checkpoint_format=hdf5
run_case gluey "$ex"/gluey_lotto.ini -s run.t_end=5
run_case ballistic "$ex"/ballistic_paper_400.ini -s particles.n=10000 -s run.seed=5
run_case ballistic_ed "$ex"/ballistic_event_driven_400.ini -s particles.n=2000 -s output.checkpoint_interval=20
run_case dpd "$ex"/dpd_vdw.ini -s run.t_end=8
echo "$stops stops by SIGTERM or SIGINT"
echo "$kills kills in all"
[ $kills -ge 28 ] || { echo "fewer than 28 kills: the runs finished too fast to be killed"; exit 1; }
[ $stops -ge 12 ] || { echo "fewer than 12 stops by SIGTERM or SIGINT: the runs finished too fast"; exit 1; }
