#!/usr/bin/env python3
"""Solver health and cluster-count monotonicity from stats.csv files."""
import csv, sys, glob
def load(p):
    with open(p) as f:
        keys = ('time', 'n_clusters', 'solver_iterations', 'mean_solver_iterations', 'max_violation', 'min_gap', 'converged')
        return [{k: float(r[k]) for k in keys} for r in csv.DictReader(f)]
for pat in sys.argv[1:]:
    files = sorted(glob.glob(pat))
    mi = mv = 0; mg = 1e9; nc = 0; rows = 0; up = down = 0; upev = 0; sumit = 0
    for p in files:
        R = load(p)
        for a in R[1:]:
            rows += 1
            mi = max(mi, a['solver_iterations']); sumit += a['mean_solver_iterations']
            mv = max(mv, a['max_violation']); mg = min(mg, a['min_gap'])
            nc += a['converged'] != 1
        for a, b in zip(R, R[1:]):
            d = b['n_clusters'] - a['n_clusters']
            if d > 0: up += d; upev += 1
            else: down -= d
    print(f"{pat}: runs {len(files)} rows {rows} max_iter {mi:.0f} mean_iter {sumit/rows:.0f} "
          f"max_violation {mv:.3g} min_gap {mg:.3g} nonconv {nc} "
          f"n_up {up:.0f} in {upev} rows, n_down {down:.0f}, up/down {up/max(down,1):.3f}")
