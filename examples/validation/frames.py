#!/usr/bin/env python3
"""Cluster analysis of trajectory.xyz frames (pure Python).
usage: frames.py traj.xyz gapfactor [times...]
For each frame: clusters with gap < gapfactor * r_mean (periodic minimum image),
unwrapped through the bonds; prints per frame: time, n_clusters, max size, and
writes 'size Rg' lines of non-spanning clusters to stdout prefixed with 'C'."""
import sys, math, re
from collections import defaultdict

def frames(path):
    with open(path) as f:
        while True:
            line = f.readline()
            if not line: return
            n = int(line)
            hdr = f.readline()
            lat = [float(x) for x in re.search(r'Lattice="([^"]*)"', hdr).group(1).split()]
            L = [lat[0], lat[4], lat[8]]
            pbc = re.search(r'pbc="([^"]*)"', hdr).group(1).split()
            t = float(re.search(r'Time=(\S+)', hdr).group(1))
            dim = int(re.search(r'dim=(\d)', hdr).group(1))
            props = re.search(r'Properties=(\S+)', hdr).group(1).split(':')
            cols = {}; c = 0
            for i in range(0, len(props), 3):
                cols[props[i]] = c; c += int(props[i+2])
            P = []
            for _ in range(n):
                w = f.readline().split()
                P.append(([float(w[cols['pos']]), float(w[cols['pos']+1]), float(w[cols['pos']+2])],
                          float(w[cols['radius']])))
            yield t, L, [p == 'T' for p in pbc], dim, P

def analyse(t, L, per, dim, P, gf):
    n = len(P)
    rm = sum(r for _, r in P) / n
    gmax = gf * rm
    cell = 2 * 1.15 * rm * 1.0 + gmax
    nc = [max(1, int(L[k] / cell)) for k in range(dim)]
    grid = defaultdict(list)
    def key(x): return tuple(min(int(x[k] / L[k] * nc[k]), nc[k]-1) for k in range(dim))
    for i, (x, r) in enumerate(P): grid[key(x)].append(i)
    def delta(a, b):
        d = [b[k] - a[k] for k in range(3)]
        for k in range(dim):
            if per[k]: d[k] -= L[k] * round(d[k] / L[k])
        return d
    nbrs = [[] for _ in range(n)]
    import itertools
    for c, mem in grid.items():
        for off in itertools.product((-1, 0, 1), repeat=dim):
            cc = []
            ok = True
            for k in range(dim):
                v = c[k] + off[k]
                if per[k]: v %= nc[k]
                elif v < 0 or v >= nc[k]: ok = False
                cc.append(v)
            if not ok: continue
            other = grid.get(tuple(cc))
            if not other: continue
            for i in mem:
                xi, ri = P[i]
                for j in other:
                    if j <= i: continue
                    d = delta(xi, P[j][0]); lim = ri + P[j][1] + gmax
                    if d[0]*d[0] + d[1]*d[1] + d[2]*d[2] < lim*lim:
                        nbrs[i].append(j); nbrs[j].append(i)
    for i in range(n): nbrs[i] = list(set(nbrs[i]))
    seen = [False]*n; out = []
    for s in range(n):
        if seen[s]: continue
        seen[s] = True; U = {s: list(P[s][0])}; st = [s]; span = False
        while st:
            i = st.pop()
            for j in nbrs[i]:
                d = delta(P[i][0], P[j][0]); xj = [U[i][k] + d[k] for k in range(3)]
                if not seen[j]:
                    seen[j] = True; U[j] = xj; st.append(j)
                elif j in U and any(abs(U[j][k] - xj[k]) > 0.5 * L[k] for k in range(dim)):
                    span = True
        m = len(U)
        cm = [sum(U[i][k] for i in U) / m for k in range(3)]
        own = 0.5 if dim == 2 else 0.6   # Rg^2 of a disc / a sphere of radius r: r^2/2, 3r^2/5
        rg = math.sqrt(sum(sum((U[i][k]-cm[k])**2 for k in range(3)) + own * P[i][1]**2 for i in U) / m)
        sxx = sum((U[i][0]-cm[0])**2 for i in U) / m
        syy = sum((U[i][1]-cm[1])**2 for i in U) / m
        out.append((m, rg, span, sxx, syy))
    return out

if __name__ == '__main__':
    path, gf = sys.argv[1], float(sys.argv[2])
    want = [float(x) for x in sys.argv[3:]]
    for t, L, per, dim, P in frames(path):
        if want and not any(abs(t - w) < 1e-6 for w in want): continue
        cl = analyse(t, L, per, dim, P, gf)
        print(f"T {t:g} {len(cl)} {max(c[0] for c in cl)} {sum(c[2] for c in cl)}")
        for m, rg, span, sxx, syy in cl:
            if m >= 2: print(f"C {t:g} {m} {rg:.6g} {int(span)} {sxx:.6g} {syy:.6g}")
