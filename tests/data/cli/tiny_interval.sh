#!/bin/sh
# tiny_interval.sh AGGLO DIR: output intervals far below the step (1e-9, 1e-12) write one output
# per step and take the time of a normal run (the schedule does not step through the interval).
exe=$1
dir=$2
ex=$(cd "$(dirname "$0")/../../../examples" && pwd)
rm -rf "$dir"
# count DIR STEPS: a trajectory frame and a stats row at every step 0 .. STEPS
count() {
  frames=$(grep -c 'Step=' "$1/trajectory.xyz")
  rows=$(($(wc -l < "$1/stats.csv") - 1))
  [ "$frames" -eq $(($2 + 1)) ] && [ "$rows" -eq $(($2 + 1)) ] ||
    { echo "$1: $frames frames and $rows stats rows for steps 0 to $2 (expected $(($2 + 1)) each)"; exit 1; }
}
# variable step (ballistic, about 80 steps): the schedules by time
timeout -k 5 60 "$exe" run "$ex/ballistic_paper_400.ini" -s output.trajectory_interval=1e-9 \
  -s output.stats_interval=1e-12 -s output.checkpoint_interval=1e-9 -s output.snapshots= \
  -o "$dir/ballistic" --quiet || { echo "ballistic: exit status $? (124 or 137: it did not end in 60 s)"; exit 1; }
steps=$(tail -n 1 "$dir/ballistic/stats.csv" | cut -d, -f2)
count "$dir/ballistic" "$steps"
# fixed step (contact, 10 steps): the schedules by step, and restart points by time
timeout -k 5 60 "$exe" run -s particles.n=200 -s run.t_end=0.2 -s output.trajectory_interval=1e-12 \
  -s output.stats_interval=1e-12 -s output.analysis_interval=1e-9 -s output.checkpoint_interval=1e-12 \
  -s output.snapshots= -o "$dir/contact" --quiet || { echo "contact: exit status $?"; exit 1; }
count "$dir/contact" 10
echo "one output per step: ballistic $steps steps, contact 10 steps"
