#!/usr/bin/python3
"""Shear viscosity of a DPD fluid from agglo's stats.csv (dpd.stress_tensor = on; docs/dpd.md,
"Pressure tensor"; bench/dpd/viscosity.sh runs it).

  viscosity.py gk L kT T_CUT DIR...     Green-Kubo: eta = V/kT int_0^T_CUT <P_ab(0) P_ab(t)> dt,
                                        the autocorrelation of the off-diagonal components
                                        (xy, xz, yz in 3D) of runs with a row every step,
                                        averaged over components and runs; trapezoid rule on
                                        the rows (the random force's stress is white noise: its
                                        t = 0 point weighs half a step, as in the Einstein-
                                        Helfand sum of the same rows). Error: the spread of the
                                        separate runs' estimates (and of each run's quarters).
  viscosity.py nemd SKIP RATE:DIR...    non-equilibrium: the mean of the `viscosity` column
                                        (-P_xy / rate) of each sheared run after time SKIP, its
                                        standard error by blocking, and the fit
                                        eta(rate) = eta_0 + c rate^2 (weighted least squares)
                                        extrapolated to rate 0.
"""
import sys
import numpy as np


def read_stats(path):
    with open(path) as f:
        names = f.readline().strip().split(',')
    data = np.genfromtxt(path, delimiter=',', skip_header=1)
    if data.ndim == 1:
        data = data[None, :]
    return {n: data[:, k] for k, n in enumerate(names)}


def acf(x, nlag):
    """<x(0) x(t)> for t = 0 .. nlag-1 (mean removed), FFT, unbiased (divided by the pairs)."""
    x = x - x.mean()
    n = len(x)
    m = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(x, m)
    c = np.fft.irfft(f * np.conj(f), m)[:nlag]
    return c / (n - np.arange(nlag))


def gk_estimate(cols, dt, V, kT, nlag):
    c = np.mean([acf(x, nlag) for x in cols], axis=0)
    run = np.concatenate(([0.0], np.cumsum(0.5 * (c[1:] + c[:-1]) * dt)))  # trapezoid
    return V / kT * run, c


def gk(L, kT, t_cut, dirs):
    estimates, quarter, curves = [], [], []
    for d in dirs:
        s = read_stats(d + '/stats.csv')
        t = s['time']
        dt = float(np.median(np.diff(t)))
        three = 'pressure_xz' in s
        names = ['pressure_xy', 'pressure_xz', 'pressure_yz'] if three else ['pressure_xy']
        V = L ** (3 if three else 2)
        skip = len(t) // 20  # the start: equilibration
        cols = [s[n][skip:] for n in names]
        nlag = int(round(t_cut / dt)) + 1
        run, c = gk_estimate(cols, dt, V, kT, nlag)
        curves.append(run)
        estimates.append(run[-1])
        q = len(cols[0]) // 4
        for k in range(4):
            quarter.append(gk_estimate([x[k * q:(k + 1) * q] for x in cols], dt, V, kT, nlag)[0][-1])
        print(f"{d}: rows {len(t)}, dt {dt:g}, eta(t_cut = {t_cut:g}) = {run[-1]:.4f}; "
              f"running integral at t = 0, {t_cut/8:g}, {t_cut/4:g}, {t_cut/2:g}: "
              f"{run[0]:.4f} {run[len(run)//8]:.4f} {run[len(run)//4]:.4f} {run[len(run)//2]:.4f}")
    est = np.array(estimates)
    qs = np.array(quarter)
    err_runs = est.std(ddof=1) / np.sqrt(len(est)) if len(est) > 1 else float('nan')
    err_q = qs.std(ddof=1) / np.sqrt(len(qs))
    print(f"GREEN-KUBO eta = {est.mean():.4f} +- {max(err_runs, err_q) if len(est) > 1 else err_q:.4f} "
          f"(runs {len(est)}: spread/sqrt(n) {err_runs:.4f}; quarters {len(qs)}: {err_q:.4f})")
    mean_curve = np.mean(curves, axis=0)
    for f in (0.25, 0.5, 0.75, 1.0):
        k = min(int(f * (len(mean_curve) - 1)), len(mean_curve) - 1)
        print(f"  mean running integral at t = {k * dt:.3g}: {mean_curve[k]:.4f}")


def block_err(x, nblocks=10):
    n = len(x) // nblocks
    m = np.array([x[k * n:(k + 1) * n].mean() for k in range(nblocks)])
    return m.std(ddof=1) / np.sqrt(nblocks)


def nemd(skip, pairs):
    rates, etas, errs = [], [], []
    for p in pairs:
        rate, d = p.split(':', 1)
        s = read_stats(d + '/stats.csv')
        keep = s['time'] >= skip
        x = s['viscosity'][keep]
        e = block_err(x)
        T = s['temperature'][keep].mean()
        rates.append(float(rate)), etas.append(x.mean()), errs.append(e)
        print(f"{d}: rate {float(rate):g}, rows {keep.sum()}, eta = {x.mean():.4f} +- {e:.4f}, kT {T:.4f}")
    r, y, e = np.array(rates), np.array(etas), np.array(errs)
    A = np.vstack([np.ones_like(r), r * r]).T / e[:, None]
    coef, *_ = np.linalg.lstsq(A, y / e, rcond=None)
    cov = np.linalg.inv(A.T @ A)
    print(f"NEMD eta_0 = {coef[0]:.4f} +- {np.sqrt(cov[0, 0]):.4f} (fit eta_0 + c rate^2, c = {coef[1]:.4f})")


if __name__ == '__main__':
    if len(sys.argv) >= 6 and sys.argv[1] == 'gk':
        gk(float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5:])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'nemd':
        nemd(float(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit(__doc__)
