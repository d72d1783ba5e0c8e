#!/usr/bin/env python3
"""The late-stage growth exponent z of the mean cluster size, S ~ t^z, per run and over runs
(docs/validation.md): bench/dlca/growth.py [--s-min 5] [--s-max 50] STATS.csv ...

Least squares of log S on log t over the rows with s-min <= S <= s-max (the aggregation under
way, before the last clusters of the box); prints z per file, then the mean, its standard error
and the number of files."""
import argparse
import math
import statistics


def exponent(path, s_min, s_max):
    with open(path) as f:
        head = f.readline().strip().split(",")
        it, isz = head.index("time"), head.index("mean_cluster_size")
        pts = []
        for line in f:
            row = line.split(",")
            t, s = float(row[it]), float(row[isz])
            if t > 0 and s_min <= s <= s_max:
                pts.append((math.log(t), math.log(s)))
    if len(pts) < 3:
        raise SystemExit(f"growth.py: {path}: {len(pts)} rows with {s_min} <= S <= {s_max}")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--s-min", type=float, default=5)
    ap.add_argument("--s-max", type=float, default=50)
    ap.add_argument("stats", nargs="+")
    a = ap.parse_args()
    zs = [exponent(p, a.s_min, a.s_max) for p in a.stats]
    for p, z in zip(a.stats, zs):
        print(f"{p}: z = {z:.3f}")
    se = statistics.stdev(zs) / math.sqrt(len(zs)) if len(zs) > 1 else float("nan")
    print(f"z = {statistics.mean(zs):.3f} +- {se:.3f} over {len(zs)} runs ({a.s_min} <= S <= {a.s_max})")


if __name__ == "__main__":
    main()
