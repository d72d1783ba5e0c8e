#!/usr/bin/python3
"""Lefebvre (2007), Figs. 2, 5, 12 from Python: a gluey particle pushed onto a plane until t = 2,
then pulled away (examples/gluey_plane.ini: m = 1, q(0) = 1, force -2 then +2, h = 0.03).

The gap q(t) = y - r is read from the position view after every step by a callback and compared
with the exact solution (tests/test_gluey.c, docs/gluey.md): q = 1 - t^2 until the landing at
t = 1, 0 while glued, then q = (t - T)^2 after the take-off at T = 4 (smooth, gamma_min = -inf),
3.5 (gamma_min = -3) or 2 (gamma_min = 0, plain inelastic contact), until the particle meets
the top wall of the 1 x 3 box (q = 3 - 2r = 2.8), where the force holds it. The adhesion memory
gamma (stats.csv) of the smooth case is compared with its exact value (-2 at impact, -4 at
t = 2, 0 at t = 4).

    /usr/bin/python3 examples/python/gluey_plane.py [--quick] [-o out_python/]

The run takes milliseconds: --quick changes nothing.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
try:
    import agglo
except ImportError:  # from the source tree
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import agglo
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CASES = [("-inf", 4.0, "smooth, $\\gamma_{min} = -\\infty$"),
         ("-3", 3.5, "rough, $\\gamma_{min} = -3$"),
         ("0", 2.0, "inelastic, $\\gamma_{min} = 0$")]


def q_exact(t, takeoff, ceiling=np.inf):
    t = np.asarray(t)
    q = np.where(t < 1, 1 - t * t, np.where(t < takeoff, 0.0, (t - takeoff) ** 2))
    return np.minimum(q, ceiling)


def gamma_exact(t):
    t = np.asarray(t)
    return np.where(t < 1, 0.0, np.where(t < 2, -2 - 2 * (t - 1),
                                         np.where(t < 4, -4 + 2 * (t - 2), 0.0)))


def run(gamma_min, stats_dir=None):
    over = {"gluey.gamma_min": gamma_min}
    if stats_dir:
        over["output.stats_interval"] = 0.03
    sim = agglo.Simulation.from_file(agglo.examples.path("gluey_plane"),
                                     overrides=over)
    r = sim.radii[0]
    x = sim.positions  # a view: read after every step
    t, q = [sim.time], [x[0, 1] - r]

    def record(s):
        t.append(s.time)
        q.append(x[0, 1] - r)

    if stats_dir:
        sim.attach_outputs(stats_dir, which="stats")
    sim.run(callback=record)
    sim.close_outputs()
    ceiling = sim.box.hi[1] - sim.box.lo[1] - 2 * r  # the gap when touching the top wall
    return np.array(t), np.array(q), sim.dt, ceiling


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="(the full run is already quick)")
    ap.add_argument("-o", "--out", default="out_python")
    args = ap.parse_args()
    fig, (a, b) = plt.subplots(2, 1, figsize=(6.4, 6.4), sharex=True,
                               gridspec_kw={"height_ratios": [1.4, 1]})
    print("Gluey particle against a plane (h = 0.03):")
    print(f"{'gamma_min':>9} {'take-off':>9} {'exact':>6} {'max |q - q_exact|':>18} "
          f"{'bound 2.5 h':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for k, (gmin, takeoff, label) in enumerate(CASES):
            t, q, h, top = run(gmin, tmp if k == 0 else None)
            err = np.abs(q - q_exact(t, takeoff, top)).max()
            lifted = np.nonzero((t > 1.5) & (q > 1e-9))[0]
            t_off = t[lifted[0] - 1] if len(lifted) else np.nan  # last step on the plane
            print(f"{gmin:>9} {t_off:9.2f} {takeoff:6.1f} {err:18.4f} {2.5 * h:12.3f}")
            ts = np.linspace(0, t[-1], 600)
            a.plot(t, q, "o", ms=2.2, color=f"C{k}", label=f"{label}: agglo")
            a.plot(ts, q_exact(ts, takeoff, top), "-", lw=1, color=f"C{k}", alpha=0.8)
            if k == 0:
                st = np.genfromtxt(os.path.join(tmp, "stats.csv"), delimiter=",", names=True)
                gt, g = st["time"], st["gamma_most_negative"]
                b.plot(gt, g, "o", ms=2.2, color="C0", label="agglo (stats.csv)")
                b.plot(ts, gamma_exact(ts), "k-", lw=1, label="exact")
                inner = (np.abs(gt - 1) > 2 * h) & (np.abs(gt - 4) > 2 * h)
                print(f"smooth case: max |gamma - gamma_exact| = "
                      f"{np.abs(g - gamma_exact(gt))[inner].max():.2e} away from t = 1 and 4")
    a.plot([], [], "k-", lw=1, label="exact")
    a.axhline(top, color="0.5", ls=":", lw=1)
    a.text(4.2, top - 0.2, "top wall", color="0.4", fontsize=8)
    a.set_ylabel("gap q")
    a.set_title("Gluey particle pushed onto a plane, then pulled (Lefebvre 2007)")
    a.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, 0.95))
    b.set_xlabel("t")
    b.set_ylabel(r"adhesion memory $\gamma$ (smooth)")
    b.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "gluey_plane_q.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
