#!/bin/sh
# Ensemble tests (tests/ensemble.cmake). usage: check.sh MODE AGGLO SCENARIO [MPIEXEC]
#   reference         the sequential ensemble into ens_ref/ (the fixture of the others)
#   jobs | np1 | np2 | np3   the same ensemble with --jobs 2 or mpirun -np K: identical files
#   resume_killed     an ensemble killed (SIGKILL) mid-way, then --resume: identical to ens_ref
#   killed_jobs       an ensemble under --jobs 2 killed (SIGKILL to the parent only): its members
#                     die with it; --resume then finishes every member
#   resume_changed    a finished member's stats.csv cut after its done marker: --resume runs it
#                     again (its marker no longer vouches for it): identical to ens_ref
#   np2_resume        mpirun -np 2 --resume after two markers were removed: identical
#   resume_crashed    a member's marker removed and its outputs cut short, --resume: identical
#   failures          a bad value and a guard that trips: reported, the others finish, status 1
#   refusals          an existing directory without --resume, a changed grid with --resume, a
#                     run's directory (unless --overwrite)
set -u
mode=$1 agglo=$2 scenario=$3 mpiexec=${4:-mpirun}
args="$scenario -s box.size= -s particles.n=120 -s run.t_end=0.6 -s output.trajectory_interval=0.2 --seeds 1-3 --vary particles.fraction=0.1,0.15 --quiet"

fail() { echo "FAIL: $*"; exit 1; }

# same DIR1 DIR2: every file equal, except the CPU and wall seconds (markers, members.csv)
same() {
  diff -r -x done -x members.csv "$1" "$2" > /dev/null || { diff -r -x done -x members.csv "$1" "$2" | head -20; fail "$1 and $2 differ"; }
  # scratch files named after $2 only: tests running at once share $1 (ens_ref)
  sed -E 's/,[^,]*,[^,]*$//' "$1/members.csv" > "$2.a.m" && sed -E 's/,[^,]*,[^,]*$//' "$2/members.csv" > "$2.b.m"
  cmp "$2.a.m" "$2.b.m" || fail "$1/members.csv and $2/members.csv differ"
  for f in $(cd "$1" && find . -name done); do
    grep -v -E '^(cpu_s|wall_s)=' "$1/$f" > "$2.a.d"; grep -v -E '^(cpu_s|wall_s)=' "$2/$f" > "$2.b.d"
    cmp -s "$2.a.d" "$2.b.d" || fail "$f differs"
  done
  n=$(find "$1" -name done | wc -l)
  echo "same: $1 $2 ($n members, ensemble.csv $(wc -l < "$1/ensemble.csv") lines)"
}

case $mode in
reference)
  rm -rf ens_ref
  "$agglo" ensemble $args -o ens_ref || fail "the reference ensemble failed"
  test "$(find ens_ref -name done | wc -l)" -eq 6 || fail "6 members expected" ;;
jobs)
  rm -rf ens_jobs; "$agglo" ensemble $args -o ens_jobs --jobs 2 || fail "--jobs 2 failed"
  same ens_ref ens_jobs ;;
np1|np2|np3)
  k=${mode#np}; rm -rf ens_$mode
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$mpiexec" --oversubscribe -np "$k" "$agglo" ensemble $args -o ens_$mode || fail "mpirun -np $k failed"
  same ens_ref ens_$mode ;;
resume_killed)
  rm -rf ens_killed_long
  "$agglo" ensemble $args -s run.t_end=3 -o ens_killed_long &
  pid=$!; sleep 0.4; kill -9 $pid; wait $pid 2>/dev/null
  "$agglo" ensemble $args -s run.t_end=3 -o ens_killed_long --resume || fail "--resume failed"
  rm -rf ens_long; "$agglo" ensemble $args -s run.t_end=3 -o ens_long || fail "the uninterrupted run failed"
  same ens_long ens_killed_long ;;
killed_jobs)
  rm -rf ens_kj
  # two members of about 3 s each, one process each
  kj="$scenario -s box.size= -s particles.n=120 -s particles.fraction=0.1 -s run.t_end=60 -s output.stats_interval=0.2"
  "$agglo" ensemble $kj --outputs stats,state --seeds 1-2 --jobs 2 -o ens_kj --quiet &
  pid=$!
  i=0 # until both members step
  while [ "$(cat ens_kj/seed=1/stats.csv ens_kj/seed=2/stats.csv 2>/dev/null | wc -l)" -lt 8 ]; do
    i=$((i + 1)); [ $i -gt 2000 ] && { kill -9 $pid; fail "the members did not start"; }
    sleep 0.01
  done
  # the members: the children of the ensemble's process (fields after the command's name)
  members=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p=$pid '{ pid = $1; sub(/^.*\) /, ""); if ($2 == p) print pid }')
  [ -n "$members" ] || fail "no member processes found"
  kill -9 $pid; wait $pid 2>/dev/null
  alive() { for m in $members; do awk '{ sub(/^.*\) /, ""); if ($1 != "Z") found = 1 } END { exit !found }' \
    /proc/$m/stat 2>/dev/null && return 0; done; return 1; }
  i=0
  while alive; do
    i=$((i + 1))
    # ours: started by this test (forked by the ensemble it started)
    [ $i -gt 100 ] && { kill -9 $members 2>/dev/null; fail "members $(echo $members) outlived their ensemble by 1 s"; }
    sleep 0.01
  done
  "$agglo" ensemble $kj --outputs stats,state --seeds 1-2 --jobs 2 -o ens_kj --quiet --resume || fail "--resume failed"
  test "$(grep -c ',ok,' ens_kj/members.csv)" -eq 2 || fail "not every member ok: $(cat ens_kj/members.csv)"
  cmp -s ens_kj/seed=1/stats.csv ens_kj/seed=2/stats.csv && fail "two seeds, the same stats"
  test "$(wc -l < ens_kj/seed=1/stats.csv)" -eq "$(wc -l < ens_kj/seed=2/stats.csv)" || fail "members of unequal length"
  echo "killed_jobs: members $(echo $members) died with their ensemble; --resume finished both" ;;
resume_changed)
  rm -rf ens_changed; cp -r ens_ref ens_changed
  m="ens_changed/particles.fraction=0.1/seed=3"
  head -c 300 "$m/stats.csv" > "$m/x" && mv "$m/x" "$m/stats.csv"
  "$agglo" ensemble $args -o ens_changed --resume || fail "--resume failed"
  same ens_ref ens_changed ;;
resume_crashed)
  rm -rf ens_crash; cp -r ens_ref ens_crash
  m="ens_crash/particles.fraction=0.15/seed=2"
  rm "$m/done" ens_crash/ensemble.csv ens_crash/members.csv
  head -c 300 "$m/stats.csv" > "$m/x" && mv "$m/x" "$m/stats.csv"
  head -c 100 "$m/trajectory.xyz" > "$m/x" && mv "$m/x" "$m/trajectory.xyz"
  "$agglo" ensemble $args -o ens_crash --resume || fail "--resume failed"
  same ens_ref ens_crash ;;
np2_resume)
  rm -rf ens_np2_resume; cp -r ens_ref ens_np2_resume
  rm ens_np2_resume/particles.fraction=0.1/seed=3/done ens_np2_resume/particles.fraction=0.15/seed=1/done
  rm ens_np2_resume/ensemble.csv
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$mpiexec" --oversubscribe -np 2 "$agglo" ensemble $args -o ens_np2_resume --resume || fail "mpirun -np 2 --resume failed"
  same ens_ref ens_np2_resume ;;
failures)
  rm -rf ens_fail
  "$agglo" ensemble $scenario -s particles.n=100 -s run.t_end=0.2 -s solver.tol=1e-9 \
    -s solver.method=uzawa -s solver.on_failure=stop --seeds 1-2 --vary solver.max_iter=2,1000 -o ens_fail --quiet 2> ens_fail.err
  rc=$?; cat ens_fail.err
  test $rc -eq 1 || fail "exit status $rc, expected 1"
  grep -q "^solver.max_iter=2/seed=1,2,1,failed,.*did not converge in 2 iterations" ens_fail/members.csv || fail "guard not reported"
  test "$(grep -c ',ok,' ens_fail/members.csv)" -eq 3 || fail "the other members did not finish"
  grep -q "^2,0.2,1,1," ens_fail/ensemble.csv || fail "the summary of the point with one good member is missing"
  grep -q "1 of 4 members failed" ens_fail.err || fail "no count of failures"
  # a --vary value the scenario cannot take is refused before any member starts (with a run's
  # scenario.ini, box.size set, and --vary particles.fraction: not 40 members failing one by one)
  rm -rf ens_badvalue
  "$agglo" ensemble $scenario -s particles.n=100 --seeds 1-20 --vary solver.on_failure=warn,bogus -o ens_badvalue 2> ens_fail.err
  rc=$?; cat ens_fail.err
  test $rc -eq 2 && grep -q "with --vary solver.on_failure=bogus: .*'bogus' is not allowed.*; no member started" ens_fail.err &&
    test ! -e ens_badvalue || fail "bad value not refused up front"
  "$agglo" ensemble $scenario --seeds 1-20 --vary particles.fraction=0.1,0.2 -o ens_badvalue 2> ens_fail.err
  rc=$?; cat ens_fail.err
  test $rc -eq 2 && grep -q "with --vary particles.fraction=0.1: give either particles.fraction or box.size" ens_fail.err &&
    test ! -e ens_badvalue || fail "fraction with box.size not refused up front" ;;
refusals)
  rm -rf ens_refuse; cp -r ens_ref ens_refuse
  "$agglo" ensemble $args -o ens_refuse 2> refusal.err; rc=$?
  test $rc -eq 2 && grep -q "holds an ensemble already: --resume continues it" refusal.err || fail "existing directory not refused"
  "$agglo" ensemble $args --vary run.dt=0.01,0.02 -o ens_refuse --resume 2> refusal.err; rc=$?
  test $rc -eq 2 && grep -q "this ensemble was made with other seeds, varied keys or outputs" refusal.err || fail "changed grid not refused"
  "$agglo" ensemble $args --vary particles.bogus=1,2 -o ens_bogus 2> refusal.err; rc=$?
  test $rc -eq 2 && grep -q "unknown key 'bogus'" refusal.err && test ! -e ens_bogus || fail "unknown key not refused"
  "$agglo" ensemble $args --seeds 3-1 -o ens_bogus 2> refusal.err; rc=$?
  test $rc -eq 2 && grep -q "expected seeds >= 0 and ranges" refusal.err || fail "bad seeds not refused"
  # a run's directory: refused, its files kept; --overwrite replaces them
  rm -rf ens_run; "$agglo" run -s particles.n=50 -s run.t_end=0.1 -o ens_run --quiet || fail "the run failed"
  cp ens_run/stats.csv run_stats.csv
  "$agglo" ensemble $args -o ens_run 2> refusal.err; rc=$?
  test $rc -eq 2 && grep -q "ens_run holds the outputs of another run (.*): give another output directory, or --overwrite" refusal.err ||
    fail "a run's directory not refused: $(cat refusal.err)"
  cmp -s run_stats.csv ens_run/stats.csv && test ! -e ens_run/grid.txt || fail "the refused ensemble changed the run's directory"
  "$agglo" ensemble $args -o ens_run --resume --overwrite 2> refusal.err; rc=$?
  test $rc -eq 2 && grep -q "give one" refusal.err || fail "--resume with --overwrite not refused"
  "$agglo" ensemble $args -o ens_run --overwrite || fail "--overwrite failed"
  test ! -e ens_run/stats.csv && test ! -e ens_run/trajectory.xyz || fail "--overwrite left the run's outputs"
  same ens_ref ens_run
  echo "refusals ok" ;;
*) fail "unknown mode $mode" ;;
esac
