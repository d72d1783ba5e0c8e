#!/usr/bin/env bash
# Communication volume of `mpirun -np K agglo run` against N/K (docs/performance.md): the
# Groot-Warren fluid (rho = 3) of N particles on K ranks for a few steps; per rank and step the
# ghosts received and the records sent (128 bytes each: ghosts and migrants), from parallel.csv.
# usage: bench/parallel/volume.sh [agglo]   (volumes do not depend on the machine's load)
set -euo pipefail
agglo=${1:-build/agglo}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| N | K | grid | N/K | ghosts per rank per step | ghosts / (N/K) | MB sent per rank per step |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for N in 30000 100000 300000 1000000; do
  L=$(/usr/bin/python3 -c "print(($N / 3) ** (1 / 3))")
  for K in 2 4 8; do
    mpirun --oversubscribe -np "$K" "$agglo" run -q --overwrite -o "$work/v" -s run.model=dpd \
      -s run.dim=3 -s particles.n="$N" -s particles.radius=0.1 -s particles.radius_spread=0 \
      -s box.size="$L" -s box.boundary=periodic -s dpd.a=25 -s dpd.gamma=4.5 -s dpd.kT=1 \
      -s dpd.rc=1 -s run.dt=0.04 -s run.t_end=0.12 -s output.snapshots= \
      -s output.trajectory_interval=0 -s output.stats_interval=1000 -s output.analysis_interval=0
    tail -1 "$work/v/parallel.csv" | /usr/bin/python3 -c "
import sys
r = sys.stdin.read().strip().split(',')
n = $N / $K
print(f'| $N | $K | {r[1]}x{r[2]}x{r[3]} | {n:.0f} | {float(r[8]):.0f} | {float(r[8]) / n:.3f} | {float(r[10]) / 1e6:.3f} |')"
  done
done
