#!/usr/bin/python3
"""Where the kinetic energy of a DPD run sits (docs/dpd.md, "Why attractive runs heat up").

    bench/dpd/energy_split.py TRAJECTORY.xyz... [--kT KT] [--from T_FROM]

Over the frames of agglo trajectory.xyz files (positions, velocities, masses; periodic box; e.g.
the seeds of one case) with t >= T_FROM (default: the second half of each), the agglomerates are the connected components of the
pairs whose centres are closer than one mean diameter (touching counts: 1e-9 d of round-off). The
kinetic energy (about the total centre of mass) is split into: free particles' translation;
agglomerates' translation (centre of mass), rigid rotation (1/2 L.I^-1.L, point masses) and
internal vibration (the rest). Each is printed as its mean energy per degree of freedom over
kT/2 (1 = equipartition at KT, default 1/3): translation 3 per body, rotation 2 (collinear) or 3,
vibration 3n - 3 - rotation; and the energy above equipartition per frame (energy units), which
says which modes run hot."""
import sys
import numpy as np


def frames(path):
    with open(path) as f:
        while True:
            head = f.readline()
            if not head:
                return
            n = int(head)
            info = f.readline()
            lat = [float(x) for x in info.split('Lattice="')[1].split('"')[0].split()]
            t = float(info.split("Time=")[1].split()[0])
            props = info.split("Properties=")[1].split()[0].split(":")
            cols, k = {}, 0
            for q in range(0, len(props), 3):
                w = int(props[q + 2])
                cols[props[q]] = (k, k + w)
                k += w
            rows = np.array([f.readline().split()[1:] for _ in range(n)], dtype=float)
            g = lambda name: rows[:, cols[name][0] - 1:cols[name][1] - 1]
            yield t, np.array([lat[0], lat[4], lat[8]]), g("pos"), g("velocities"), g("masses")[:, 0], g("radius")[:, 0]


def components(x, L, d):
    n = len(x)
    parent = list(range(n))
    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for i in range(n):
        dx = x[i + 1:] - x[i]
        dx -= L * np.rint(dx / L)
        for j in np.nonzero((dx * dx).sum(1) < (d * (1 + 1e-9)) ** 2)[0]:
            parent[find(i)] = find(i + 1 + j)
    groups = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def split(g, x, v, m, L):
    """Kinetic energy of agglomerate g: translation, rotation, vibration, rotational dof."""
    mg, vg = m[g], v[g]
    K = 0.5 * (mg[:, None] * vg * vg).sum()
    xg = x[g] - x[g[0]]
    xg -= L * np.rint(xg / L)  # unwrapped about the first member (agglomerates << L/2)
    M = mg.sum()
    y = xg - (mg[:, None] * xg).sum(0) / M
    V = (mg[:, None] * vg).sum(0) / M
    Lam = (mg[:, None] * np.cross(y, vg - V)).sum(0)
    I = sum(mi * (yi @ yi * np.eye(3) - np.outer(yi, yi)) for mi, yi in zip(mg, y))
    w, Q = np.linalg.eigh(I)
    axes = [k for k in range(3) if w[k] > 1e-6 * w.max()]
    Lq = Q.T @ Lam
    Krot = 0.5 * sum(Lq[k] ** 2 / w[k] for k in axes)
    Kt = 0.5 * M * V @ V
    return Kt, Krot, K - Kt - Krot, len(axes)


def main():
    args, paths, kT, t_from = sys.argv[1:], [], 1.0 / 3, None
    while args:
        a = args.pop(0)
        if a == "--kT":
            kT = float(args.pop(0))
        elif a == "--from":
            t_from = float(args.pop(0))
        else:
            paths.append(a)
    E = dict(free=0.0, trans=0.0, rot=0.0, vib=0.0)
    dof = dict(free=0, trans=0, rot=0, vib=0)
    used = 0
    for path in paths:
        all_frames = list(frames(path))
        start = t_from if t_from is not None else all_frames[-1][0] / 2
        for t, L, x, v, m, r in all_frames:
            if t < start:
                continue
            used += 1
            v = v - (m[:, None] * v).sum(0) / m.sum()
            for g in components(x, L, 2 * r.mean()):
                if len(g) == 1:
                    E["free"] += 0.5 * m[g[0]] * v[g[0]] @ v[g[0]]
                    dof["free"] += 3
                    continue
                Kt, Krot, Kvib, nrot = split(g, x, v, m, L)
                E["trans"] += Kt
                E["rot"] += Krot
                E["vib"] += Kvib
                dof["trans"] += 3
                dof["rot"] += nrot
                dof["vib"] += 3 * len(g) - 3 - nrot
    total_E, total_dof = sum(E.values()), sum(dof.values())
    print("%s: %d frames (second half unless --from), kT = %g" % (" ".join(paths), used, kT))
    print("| mode | degrees of freedom (per frame) | energy / (dof kT/2) | excess per frame |")
    print("| --- | --- | --- | --- |")
    for k, name in (("free", "free particles"), ("trans", "agglomerates, translation"),
                    ("rot", "agglomerates, rotation"), ("vib", "agglomerates, vibration")):
        ratio = E[k] / (dof[k] * kT / 2) if dof[k] else float("nan")
        print("| %s | %.1f | %.3f | %+.2f |" % (name, dof[k] / max(used, 1), ratio,
                                              (E[k] - dof[k] * kT / 2) / max(used, 1)))
    print("| all | %.1f | %.4f | %+.2f |" % (total_dof / max(used, 1), total_E / (total_dof * kT / 2),
                                            (total_E - total_dof * kT / 2) / max(used, 1)))


if __name__ == "__main__":
    main()
