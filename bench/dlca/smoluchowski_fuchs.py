#!/usr/bin/env python3
"""Measured mean cluster sizes of DLCA runs against Smoluchowski's equation with the Fuchs
kernel, on the absolute time scale (no fitted factor; docs/validation.md):

    PYTHONPATH=python bench/dlca/smoluchowski_fuchs.py D1 A N0 PERSISTENCE KNUDSEN STATS.csv ...

D1 a monomer's diffusion coefficient, A its radius, N0 the monomers' number density (the units of
the runs), PERSISTENCE and KNUDSEN a monomer's persistence length and the gas's mean free path in
radii (the run's first line prints them). The solution (agglo.analysis.smoluchowski, kernel
"fuchs", D_f 1.8 for the collision and mobility radii, the adjusted sphere) runs in
tau = 4 pi D1 A N0 t; prints, at the times the mean measured size S (N / n_c averaged over the
runs) passes 2, 5, 10, 20, 50, the solution's S and the ratio of the times at which each
reaches it; then the growth exponent z (least squares of log S on log t over 5 <= S <= 50) of the
mean measured curve and of the solution."""
import sys

import numpy as np

import agglo.analysis as aa

SIZES = (2, 5, 10, 20, 50)


def exponent(t, s, lo=5, hi=50):
    t, s = np.asarray(t), np.asarray(s)
    keep = (t > 0) & (s >= lo) & (s <= hi)
    if keep.sum() < 3:
        return float("nan")
    return np.polyfit(np.log(t[keep]), np.log(s[keep]), 1)[0]


def measured(paths):
    series = []
    for p in paths:
        d = np.genfromtxt(p, delimiter=",", names=True)
        series.append((d["time"], d["mean_cluster_size"]))
    t = series[0][0]
    s = np.mean([np.interp(t, a, b) for a, b in series], axis=0)
    return t, s


def main():
    d1, a, n0, lam, kn = (float(x) for x in sys.argv[1:6])
    t, s = measured(sys.argv[6:])
    scale = 4 * np.pi * d1 * a * n0
    kmax, n, tau, taus, sol = 512, None, 0.0, [0.0], [1.0]
    steps = 0
    while sol[-1] < SIZES[-1] and steps < 400:  # bounded: 400 increments of 5%
        dt = max(0.05 * tau, 1e-2)
        r = aa.smoluchowski("fuchs", dt, kmax=kmax, df=1.8, n0=n, persistence=lam, knudsen=kn)
        n, tau, steps = r.n, tau + dt, steps + 1
        k = np.arange(1, kmax + 1)
        taus.append(tau)
        sol.append((k * n).sum() / n.sum())
    for size in SIZES:
        if s.max() < size or sol[-1] < size:
            continue
        tm = np.interp(size, s, t)  # S rises
        ts = np.interp(size, sol, taus) / scale
        print(f"S = {size}: measured at t = {tm:.4g}, Smoluchowski-Fuchs at {ts:.4g}, ratio {tm / ts:.3f}")
    print(f"z (5 <= S <= 50): measured (mean S) {exponent(t, s):.3f}, Smoluchowski-Fuchs {exponent(taus, sol):.3f}")


if __name__ == "__main__":
    main()
