#!/usr/bin/env python3
"""mean.py OUT.dat stats1.csv stats2.csv ... -> t mean_n std_n mean_max std_max nseeds"""
import csv, sys, math
out, files = sys.argv[1], sys.argv[2:]
data = []
for p in files:
    with open(p) as f:
        data.append({round(float(r['time']), 6): (float(r['n_clusters']), float(r['max_cluster_size']))
                     for r in csv.DictReader(f)})
ts = sorted(set.intersection(*[set(d) for d in data]))
with open(out, 'w') as f:
    f.write("# t mean_n std_n mean_max std_max nseeds\n")
    for t in ts:
        a = [d[t][0] for d in data]; b = [d[t][1] for d in data]; k = len(a)
        ma, mb = sum(a)/k, sum(b)/k
        sa = math.sqrt(sum((x-ma)**2 for x in a)/(k-1)) if k > 1 else 0
        sb = math.sqrt(sum((x-mb)**2 for x in b)/(k-1)) if k > 1 else 0
        f.write(f"{t:g} {ma:.6g} {sa:.4g} {mb:.6g} {sb:.4g} {k}\n")
