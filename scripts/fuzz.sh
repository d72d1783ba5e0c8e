#!/usr/bin/env bash
# Build the libFuzzer targets and run each for a bounded time (default 60 s) from a seed corpus
# of our examples and outputs. Crashes land in fuzz/crashes/; each becomes a regression test
# input in tests/data/fuzz/. Usage: scripts/fuzz.sh [seconds] [target...]
# (targets: scenario override xyz state from; all by default). FUZZ_RUNS=N also stops each after N
# executions (whichever comes first). Each runs as one process, one thread, niced (a shared machine).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
command -v clang >/dev/null || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get install -y -qq clang libclang-rt-14-dev libomp-dev; }
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DAGGLO_FUZZ=ON -DAGGLO_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j2 --target fuzz_scenario fuzz_override fuzz_xyz fuzz_state fuzz_from
work=build-fuzz/corpus
mkdir -p "$work"/{scenario,override,xyz,state,from} fuzz/crashes
cp examples/*.ini tests/data/*.ini "$work/scenario/" 2>/dev/null || true
printf 'run.dt=0.01\0particles.n=100\0box.size=1 2\0' > "$work/override/seed1"
printf 'box.boundary=wall periodic\0flow.type=vortex\0' > "$work/override/seed2"
cp tests/data/*.xyz "$work/xyz/" 2>/dev/null || true
[ -f build/agglo ] && build/agglo run -o "$work/run" --quiet -s particles.n=20 -s run.t_end=0.04 -s output.snapshots= \
  && head -c 20000 "$work/run/trajectory.xyz" > "$work/xyz/ours.xyz" || true
# restart points (contacts.txt without its seal, a NUL byte, state.xyz) of a contact and a DPD run
# (fuzz_state seals what it reads); particles.from
if [ -f build/agglo ]; then
  build/agglo run -o "$work/rc" --overwrite --quiet -s particles.n=5 -s box.size=0.2 -s run.t_end=0.04 -s output.snapshots= &&
    { head -n -1 "$work/rc/contacts.txt"; printf '\0'; cat "$work/rc/state.xyz"; } > "$work/state/contact" &&
    head -c 3000 "$work/rc/trajectory.xyz" > "$work/from/ours.xyz" || true
  build/agglo run -o "$work/rd" --overwrite --quiet -s run.model=dpd -s run.dim=3 -s particles.n=4 -s box.size=2 \
    -s box.boundary=periodic -s dpd.rc=0.9 -s run.t_end=0.02 -s output.snapshots= &&
    { head -n -1 "$work/rd/contacts.txt"; printf '\0'; cat "$work/rd/state.xyz"; } > "$work/state/dpd" || true
fi
shift || true
targets=${*:-scenario override xyz state from}
for t in $targets; do
  echo "== fuzz_$t for ${secs}s${FUZZ_RUNS:+ or $FUZZ_RUNS executions}"
  OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1 nice -n 10 build-fuzz/fuzz/fuzz_$t "$work/$t" \
    -max_total_time="$secs" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} \
    -max_len=4096 -artifact_prefix=fuzz/crashes/ -print_final_stats=1 2>&1 \
    | grep -E "stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Done" || true
done
ls fuzz/crashes
