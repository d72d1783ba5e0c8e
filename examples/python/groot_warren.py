#!/usr/bin/python3
"""Groot and Warren (1997) from Python: the temperature of a DPD fluid over time
(examples/dpd_groot_warren.ini: rho = 3, a = 25, gamma = 4.5, k_BT = 1, dt = 0.04,
lambda = 0.65, N = 24 000 in a periodic 20^3 box, t = 0..40).

The kinetic temperature k_BT = sum m |v - v_cm|^2 / (3 (N - 1)) is measured every 10 steps by a
callback (agglo.analysis.temperature on the velocity view); the thermostat must hold it at the
set k_BT (docs/dpd.md: within 2 %), and the total momentum stays zero.

    /usr/bin/python3 examples/python/groot_warren.py [--quick] [-o out_python/]

--quick: N = 3000 in a 10^3 box (the same density), t = 0..10.
"""
import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
try:
    import agglo
except ImportError:  # from the source tree
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import agglo
from agglo import analysis  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 3000, t <= 10")
    ap.add_argument("-o", "--out", default="out_python")
    ap.add_argument("--equilibration", type=float, default=4.0,
                    help="time left out of the mean (default 4)")
    args = ap.parse_args()
    over = {"particles.n": 3000, "box.size": 10, "run.t_end": 10} if args.quick else {}
    sim = agglo.Simulation.from_file(agglo.examples.path("dpd_groot_warren"),
                                     overrides=over)
    kt_set = float(sim.config["dpd.kT"])
    masses = sim.masses  # a view; constant over the run
    t, kt, p = [], [], []

    def measure(s):
        v = s.velocities
        t.append(s.time)
        kt.append(analysis.temperature(v, masses))
        p.append(np.abs((masses[:, None] * v).sum(axis=0)).max())

    measure(sim)
    start = time.perf_counter()
    sim.run(callback=measure, every=10)
    wall = time.perf_counter() - start
    t, kt, p = map(np.array, (t, kt, p))
    eq = t >= args.equilibration
    mean, sd = kt[eq].mean(), kt[eq].std(ddof=1)
    print(f"Groot-Warren DPD: N = {sim.n}, box {sim.box.length[0]:g}^3, {sim.step_count} steps "
          f"of dt = {sim.dt:g} in {wall:.1f} s")
    print(f"k_BT set {kt_set:g}; measured at t = 0: {kt[0]:.4f}, max {kt.max():.4f} "
          f"(t = {t[kt.argmax()]:g})")
    print(f"mean over t >= {args.equilibration:g}: {mean:.4f} +- {sd:.4f} (sd of "
          f"{eq.sum()} samples), {100 * (mean / kt_set - 1):+.2f} % from k_BT")
    print(f"largest |total momentum| component over the run: {p.max():.2e}")

    os.makedirs(args.out, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.plot(t, kt, "C0-", lw=1, label=f"agglo from Python, N = {sim.n}")
    ax.axhline(kt_set, color="k", lw=1, label=r"set $k_BT$")
    ax.axhspan(0.98 * kt_set, 1.02 * kt_set, color="C2", alpha=0.2, lw=0, label="± 2 %")
    ax.axvline(args.equilibration, color="0.5", ls=":", lw=1)
    ax.set_xlabel("t")
    ax.set_ylabel(r"kinetic temperature $k_BT$")
    ax.set_title(r"Groot–Warren DPD fluid ($\rho$ = 3, a = 25, $\gamma$ = 4.5, "
                 r"$\Delta t$ = 0.04)")
    ax.legend(loc="upper right")
    fig.tight_layout()
    path = os.path.join(args.out, "groot_warren_temperature.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
