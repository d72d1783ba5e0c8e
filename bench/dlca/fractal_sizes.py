#!/usr/bin/python3
"""The mass-radius law of a dlca ensemble's clusters by size band, over every frame of each run
(docs/validation.md, "the continuum's D_f"): which sizes set a fit's D_f and k_f.

  bench/dlca/fractal_sizes.py [--agglo AGGLO] [--radius a] [--spheres] [--bands 10,30,100,300,3000]
                              OUT/seed=1 OUT/seed=2 ...

Each run directory holds the trajectory.xyz of `bench/dlca/fractal.sh`; every frame is analysed
once (`agglo analyze --frame K`, into RUN/frames/K/, kept for the next call), and the clusters of
at least the first band's size are gathered over the frames, each distinct cluster once (a cluster
that did not merge between two frames has the same size and R_g to the last digit, and would
otherwise weigh as many times as it lasts). Per band [s_lo, s_hi): the least-squares fit of
log(R_g/a) on log N (as fit_fractal.py) per run and pooled, and k_f at D_f = 1.78; the last line
fits all bands together. --spheres: R_g^2 + (3/5) a^2 (the solid spheres' R_g)."""
import argparse
import csv
import math
import os
import statistics
import subprocess


def frames_of(path):
    """number of frames of an extended XYZ file (count lines, read the first header)"""
    with open(path) as f:
        n = int(f.readline())
    lines = 0
    with open(path, "rb") as f:
        for _ in f:
            lines += 1
    return lines // (n + 2)


def clusters(run, agglo, a, spheres, s_min):
    traj = os.path.join(run, "trajectory.xyz")
    seen, pts = set(), []
    for k in range(2, frames_of(traj) + 1):
        out = os.path.join(run, "frames", str(k))
        csv_path = os.path.join(out, "clusters.csv")
        if not os.path.exists(csv_path):
            os.makedirs(os.path.join(run, "frames"), exist_ok=True)
            subprocess.run([agglo, "analyze", traj, "--frame", str(k), "--overwrite", "-o", out],
                           check=True, stdout=subprocess.DEVNULL)
        with open(csv_path, newline="") as f:
            for r in csv.DictReader(f):
                s, rg = int(r["size"]), float(r["rg"])
                if s < s_min or rg <= 0 or (s, r["rg"]) in seen:
                    continue
                seen.add((s, r["rg"]))
                pts.append((math.log(s), 0.5 * math.log((rg / a) ** 2 + (0.6 if spheres else 0.0))))
    return pts


def fit(pts):
    """D_f, k_f of log(R_g/a) = c + log(N)/D_f, or None without a factor 2 of sizes"""
    if len(pts) < 3 or max(p[0] for p in pts) - min(p[0] for p in pts) < math.log(2):
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    b = sum((p[0] - mx) * (p[1] - my) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)
    return 1 / b, math.exp(-(my - b * mx) / b)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--agglo", default=os.path.join(here, "..", "..", "build", "agglo"))
    ap.add_argument("--radius", type=float, default=1.0)
    ap.add_argument("--spheres", action="store_true")
    ap.add_argument("--bands", default="10,30,100,300,3000")
    ap.add_argument("runs", nargs="+")
    o = ap.parse_args()
    edges = [int(x) for x in o.bands.split(",")]
    runs = [clusters(r, o.agglo, o.radius, o.spheres, edges[0]) for r in o.runs]
    bands = [(lo, hi) for lo, hi in zip(edges, edges[1:])] + [(edges[0], edges[-1])]
    for lo, hi in bands:
        per = [fit([p for p in pts if lo <= math.exp(p[0]) + 1e-9 < hi]) for pts in runs]
        per = [x for x in per if x]
        pooled = [p for pts in runs for p in pts if lo <= math.exp(p[0]) + 1e-9 < hi]
        pf = fit(pooled)
        if not pf:
            print(f"N in [{lo}, {hi}): {len(pooled)} clusters, no fit")
            continue
        kf178 = math.exp(sum(p[0] - 1.78 * p[1] for p in pooled) / len(pooled))
        line = f"N in [{lo}, {hi}): {len(pooled)} clusters: pooled D_f = {pf[0]:.3f}, k_f = {pf[1]:.3f}; k_f at 1.78 = {kf178:.3f}"
        if len(per) >= 2:
            d = [x[0] for x in per]
            line += f"; per run ({len(per)}) D_f = {statistics.mean(d):.3f} +- {statistics.stdev(d) / math.sqrt(len(d)):.3f}"
        print(line)


if __name__ == "__main__":
    main()
