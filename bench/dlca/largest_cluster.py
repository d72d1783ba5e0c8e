#!/usr/bin/python3
"""The largest cluster of a run's state.xyz, made whole across the periodic faces, as an extended
XYZ file of its own (a box around it, no periodicity) for `agglo render` (docs/pictures.md).

    bench/dlca/largest_cluster.py RUN/state.xyz OUT.xyz

The cluster is walked from one member through touching pairs (gap <= 1e-6 of the radii), each
member placed at the minimum image of the member that reached it: a cluster that wraps the box
comes out in one piece. Fails, naming the file, if the cluster's members do not all touch."""
import sys
from collections import deque

import numpy as np


def read_state(path):
    with open(path) as f:
        n = int(f.readline())
        if not 0 < n <= 10**8:
            sys.exit(f"{path}: line 1: particle count {n} not in 1..1e8")
        header = f.readline()
        fields = {k: v for k, v in (w.split("=", 1) for w in header.replace('"', "").split() if "=" in w)}
        lattice = [float(x) for x in header.split('Lattice="')[1].split('"')[0].split()]
        props = fields["Properties"].split(":")
        cols, at = {}, 0
        for name, kind, width in zip(props[0::3], props[1::3], props[2::3]):
            cols[name] = (at, int(width))
            at += int(width)
        rows = [f.readline().split() for _ in range(n)]
    if len(rows[-1]) != at:
        sys.exit(f"{path}: expected {n} particle lines of {at} columns")
    a = np.array([r[1:] for r in rows], dtype=float)  # species dropped: column k -> k - 1
    col = lambda name: a[:, cols[name][0] - 1: cols[name][0] - 1 + cols[name][1]]
    box = np.array([lattice[0], lattice[4], lattice[8]])
    return col("pos"), col("radius")[:, 0], col("cluster")[:, 0].astype(int), box, header


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    pos, rad, cl, box, header = read_state(sys.argv[1])
    labels, counts = np.unique(cl, return_counts=True)
    big = labels[np.argmax(counts)]
    idx = np.flatnonzero(cl == big)
    x, r = pos[idx], rad[idx]
    reach = 2 * r.max() * (1 + 1e-6)
    ncell = np.maximum(1, (box // reach).astype(int))
    cell = lambda p: tuple((np.floor(p / box * ncell).astype(int)) % ncell)
    grid = {}
    for k, p in enumerate(x):
        grid.setdefault(cell(p), []).append(k)
    placed = np.full(len(idx), False)
    out = x.copy()
    placed[0] = True
    todo = deque([0])
    while todo:
        i = todo.popleft()
        ci = np.array(cell(x[i]))
        for d in np.ndindex(3, 3, 3):
            for j in grid.get(tuple((ci + np.array(d) - 1) % ncell), ()):
                if placed[j]:
                    continue
                dx = x[j] - x[i]
                dx -= box * np.round(dx / box)
                if np.linalg.norm(dx) <= (r[i] + r[j]) * (1 + 1e-6):
                    out[j] = out[i] + dx
                    placed[j] = True
                    todo.append(j)
    if not placed.all():
        sys.exit(f"{sys.argv[1]}: cluster {big}: {int((~placed).sum())} of {len(idx)} members touch no other")
    lo = out.min(axis=0) - 2 * r.max()
    out -= lo
    side = out.max(axis=0) + 2 * r.max()
    with open(sys.argv[2], "w") as f:
        f.write(f"{len(idx)}\n")
        f.write(f'Lattice="{side[0]} 0 0 0 {side[1]} 0 0 0 {side[2]}" Origin="0 0 0" '
                f'Properties=species:S:1:pos:R:3:radius:R:1:id:I:1:cluster:I:1 pbc="F F F"\n')
        for k, (p, rr) in enumerate(zip(out, r)):
            f.write(f"X {p[0]:.10g} {p[1]:.10g} {p[2]:.10g} {rr:.10g} {k + 1} 1\n")
    print(f"cluster {big}: {len(idx)} members, extent {side[0]:.1f} x {side[1]:.1f} x {side[2]:.1f}")


if __name__ == "__main__":
    main()
