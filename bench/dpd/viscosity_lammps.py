#!/usr/bin/env python3
"""Viscosity of the Groot-Warren DPD fluid from the LAMMPS runs of bench/dpd/viscosity_lammps.sh.

  viscosity_lammps.py DIR L DT     (DIR holds shear_<rate>.txt, profile_<rate>.txt, gk_*.txt)

NEMD: eta(rate) = -<P_xy>/rate per block of the run, mean and standard error over the blocks;
eta_0 by a weighted straight-line fit in the rate (and the weighted mean, the fit of a constant);
the velocity profile's slope against the imposed rate and its largest departure from the line.
Green-Kubo: eta = V/kT * dt * trapezoid sum of <P_ab(0) P_ab(t)> (ab = xy, xz, yz) up to a
cut-off, per block (mean of the three components), mean and standard error over the blocks."""
import glob
import os
import sys

import numpy as np


def table(path):
    rows = [l.split() for l in open(path) if l.strip() and not l.startswith('#')]
    return np.array(rows, dtype=float)


def nemd(d, L):
    out = []
    for f in sorted(glob.glob(os.path.join(d, 'shear_*.txt')), key=lambda f: float(f[f.rindex('_') + 1:-4])):
        rate = float(f[f.rindex('_') + 1:-4])
        t = table(f)  # step, T, pxy, pxz, pyz, pxx, pyy, pzz
        eta = -t[:, 2] / rate
        n = len(eta)
        slope = dev = float('nan')
        pf = os.path.join(d, 'profile_%s.txt' % f[f.rindex('_') + 1:-4])
        rows = [l.split() for l in open(pf) if l.strip() and not l.startswith('#')] if os.path.exists(pf) else []
        rows = [r for r in rows if len(r) == 4]  # chunk rows of every output, averaged per chunk
        if rows:
            nch = int(max(float(r[0]) for r in rows))
            y = np.array([np.mean([float(r[1]) for r in rows if int(r[0]) == c]) for c in range(1, nch + 1)]) * L
            vx = np.array([np.mean([float(r[3]) for r in rows if int(r[0]) == c]) for c in range(1, nch + 1)])
            slope = np.polyfit(y, vx, 1)[0] / rate
            dev = np.max(np.abs(vx - rate * y)) / (rate * L)
        out.append(dict(rate=rate, eta=eta.mean(), err=eta.std(ddof=1) / np.sqrt(n), n=n,
                        T=t[:, 1].mean(), slope=slope, dev=dev))
    return out


def extrapolate(rows):
    r = np.array([x['rate'] for x in rows]); e = np.array([x['eta'] for x in rows])
    s = np.array([x['err'] for x in rows]); w = 1 / s ** 2
    A = np.vstack([np.ones_like(r), r]).T
    cov = np.linalg.inv(A.T @ (A * w[:, None]))
    beta = cov @ (A.T @ (w * e))
    chi2 = float(np.sum(w * (e - A @ beta) ** 2))
    mean = float(np.sum(w * e) / np.sum(w)); mean_err = float(1 / np.sqrt(np.sum(w)))
    chi2c = float(np.sum(w * (e - mean) ** 2))
    return beta[0], np.sqrt(cov[0, 0]), beta[1], chi2, mean, mean_err, chi2c


def green_kubo(d, L, dt):
    f = os.path.join(d, 'gk_correlate.txt')
    if not os.path.exists(f):
        return None
    lines = [l.split() for l in open(f) if l.strip() and not l.startswith('#')]
    blocks, cur = [], None
    for r in lines:
        if len(r) == 2:
            cur = []; blocks.append(cur)
        else:
            cur.append([float(x) for x in r])
    blocks = [np.array(b) for b in blocks if b]
    # the output at the first step holds one sample: keep the full blocks only
    full = max(b[0, 2] for b in blocks)
    blocks = [b for b in blocks if b[0, 2] == full]
    T = table(os.path.join(d, 'gk_temp.txt'))[:, 1].mean()
    V = L ** 3
    res = {}
    ncorr = blocks[0].shape[0]
    for cut in sorted({ncorr // 4, ncorr // 2, ncorr}):
        per = []
        for b in blocks:
            c = b[:cut, 3:6]
            integ = dt * (c.sum(axis=0) - 0.5 * (c[0] + c[-1]))
            per.append(V / T * integ.mean())
        per = np.array(per)
        res[(cut - 1) * dt] = (per.mean(), per.std(ddof=1) / np.sqrt(len(per)), len(per))
    return T, res


def main():
    d, L, dt = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    rows = nemd(d, L)
    if rows:
        print('| shear rate | eta = -<P_xy>/rate | blocks | kT (peculiar) | profile slope / rate | largest departure from the line |')
        print('| --- | --- | --- | --- | --- | --- |')
        for x in rows:
            print('| %g | %.4f ± %.4f | %d | %.4f | %.4f | %.1f %% |' % (x['rate'], x['eta'], x['err'], x['n'], x['T'], x['slope'], 100 * x['dev']))
        if len(rows) >= 2:
            e0, e0err, b, chi2, mean, mean_err, chi2c = extrapolate(rows)
            print('\nNEMD, straight line in the rate: eta_0 = %.4f ± %.4f (slope %.4f, chi2 %.2f for %d dof); '
                  'constant: %.4f ± %.4f (chi2 %.2f for %d dof)' % (e0, e0err, b, chi2, len(rows) - 2, mean, mean_err, chi2c, len(rows) - 1))
    gk = green_kubo(d, L, dt)
    if gk:
        T, res = gk
        print('\nGreen-Kubo (kT measured %.4f):' % T)
        for tc, (m, e, n) in res.items():
            print('  integral to t = %.2f: eta = %.4f ± %.4f (%d blocks)' % (tc, m, e, n))


if __name__ == '__main__':
    main()
