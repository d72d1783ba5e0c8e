#!/usr/bin/env python3
"""The initial collision rate of a DLCA aerosol of monomers against Fuchs's kernel (docs/validation.md).

    bench/dlca/fuchs_rate.py AGGLO OUT SEED [-s key=value ...]

runs bench/dlca/fuchs.ini (SI, 3D monomers of one radius, periodic, every contact sticks) with the
overrides to the time at which the kernel predicts 10 % of the merges, and prints the measured
1/N_c - 1/N_0 at the first row with N_c <= 0.9 N_0 over its prediction

    1/N_c - 1/N_0 = beta_F (t + 2 R_eff sqrt(t / (pi D_12))) / (2 V),  R_eff = beta_F / (4 pi D_12),

Fuchs's kernel beta_F (Seinfeld & Pandis 2016, Table 13.1) with the transient of a partially
absorbing sphere of the same steady rate (Smoluchowski's 1 + R / sqrt(pi D t) in the continuum,
nothing in the free molecular limit). The gas is computed here from the scenario, independently
of agglo (Sutherland's air unless dlca.viscosity is given; Kim et al. 2005's Cunningham
correction) and checked against the D agglo prints.
"""
import math
import re
import subprocess
import sys
from pathlib import Path

KB, RGAS = 1.380649e-23, 8.314462618


def settings(overrides):
    s = {"particles.radius": 15e-9, "particles.n": 20000, "particles.fraction": 1e-3,
         "dlca.density": 1800, "dlca.temperature": 300, "dlca.pressure": 101325,
         "dlca.viscosity": 0, "dlca.gas_molar_mass": 0.02897}
    for o in overrides:
        k, v = o.split("=", 1)
        if k in s:
            s[k] = float(v)
    return s


def fuchs(r, D, c):
    """Seinfeld & Pandis Table 13.1 for two equal spheres of radius r."""
    d, l = 2 * r, 8 * D / (math.pi * c)
    g = ((d + l) ** 3 - (d * d + l * l) ** 1.5) / (3 * d * l) - d
    D12, d12, g12, c12 = 2 * D, 2 * d, math.sqrt(2) * g, math.sqrt(2) * c
    return 2 * math.pi * D12 * d12 / (d12 / (d12 + 2 * g12) + 8 * D12 / (c12 * d12))


def physics(s):
    T, P, r = s["dlca.temperature"], s["dlca.pressure"], s["particles.radius"]
    mu = s["dlca.viscosity"] or 1.716e-5 * (T / 273.15) ** 1.5 * (273.15 + 110.4) / (T + 110.4)
    mfp = mu / P * math.sqrt(math.pi * RGAS * T / (2 * s["dlca.gas_molar_mass"]))
    kn = mfp / r
    cc = 1 + kn * (1.165 + 0.483 * math.exp(-0.997 / kn))
    m = s["dlca.density"] * 4 / 3 * math.pi * r ** 3
    f = 6 * math.pi * mu * r / cc
    D, c = KB * T / f, math.sqrt(8 * KB * T / (math.pi * m))
    V = s["particles.n"] * 4 / 3 * math.pi * r ** 3 / s["particles.fraction"]
    return {"mu": mu, "kn": kn, "D": D, "c": c, "V": V, "beta": fuchs(r, D, c), "tau": m / f}


def predicted(p, t):
    D12 = 2 * p["D"]
    reff = p["beta"] / (4 * math.pi * D12)
    return p["beta"] * (t + 2 * reff * math.sqrt(t / (math.pi * D12))) / (2 * p["V"])


def main():
    agglo, out, seed, over = sys.argv[1], sys.argv[2], sys.argv[3], []
    a = sys.argv[4:]
    while a:
        if a[0] == "-s" and len(a) > 1:
            over.append(a[1])
            a = a[2:]
        else:
            sys.exit(f"fuchs_rate.py: unexpected argument {a[0]!r} (give -s key=value)")
    s = settings(over)
    p = physics(s)
    n0 = s["particles.n"]
    target = 1 / (0.9 * n0) - 1 / n0
    lo, hi = 0.0, 1.0
    while predicted(p, hi) < target:  # bounded: doubling from 1 s covers any rate above 1e-300
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if predicted(p, mid) < target else (lo, mid)
    t10 = hi
    ini = Path(__file__).with_name("fuchs.ini")
    cmd = [agglo, "run", str(ini), "-o", out, "--overwrite", "-s", f"run.seed={seed}",
           "-s", f"run.t_end={2 * t10:.6g}", "-s", f"output.stats_interval={t10 / 200:.6g}"]
    for o in over:
        cmd += ["-s", o]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"fuchs_rate.py: {' '.join(cmd)} failed:\n{run.stderr}{run.stdout}")
    m = re.search(r"D = ([0-9.e+-]+) m\^2/s", run.stdout + run.stderr)
    Dagglo = float(m.group(1)) if m else float("nan")
    rows = [line.split(",") for line in Path(out, "stats.csv").read_text().splitlines()[1:]]
    for row in rows:
        t, nc = float(row[0]), float(row[2])
        if nc <= 0.9 * n0:
            meas = 1 / nc - 1 / n0
            print(f"Kn {p['kn']:.4g} mu {p['mu']:.4g} D {p['D']:.4g} (agglo {Dagglo:.4g}) "
                  f"beta_F {p['beta']:.4g} beta_FM {math.pi * (2 * s['particles.radius']) ** 2 * math.sqrt(2) * p['c']:.4g} "
                  f"beta_C {16 * math.pi * p['D'] * s['particles.radius']:.4g} t {t:.4g} (t/tau {t / p['tau']:.3g}) "
                  f"N_c {nc:.0f} ratio {meas / predicted(p, t):.4f} merges {n0 - nc:.0f}")
            return
    sys.exit(f"fuchs_rate.py: {out}/stats.csv never reached 0.9 N_0 (run to 2 t_10)")


if __name__ == "__main__":
    main()
