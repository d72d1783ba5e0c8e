#!/usr/bin/python3
"""Degond et al. (2024) from Python: the relative contacts per sphere N_c of the final cluster
over seeds (examples/ballistic_paper_400.ini: N = 400 discs, V_f = 0.2, walls, time stepping,
until one cluster is left).

N_c = (1/(6N)) sum_{i,j} 1{|x_i - x_j| <= 2.1 r} and the box-counting D_f (eps from 3r to L/2)
are computed with agglo.analysis on the final positions, and compared with docs/ballistic.md:
time stepping 0.535 +- 0.006 (D_f 1.748 +- 0.022), event driven 0.511, the paper's N_c ~ 0.5.

    /usr/bin/python3 examples/python/degond_nc.py [--quick] [-o out_python/] [--seeds 20]
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

DOCS_TS, DOCS_TS_SD, DOCS_ED, PAPER = 0.535, 0.006, 0.511, 0.5  # docs/ballistic.md, N = 400
DOCS_DF, DOCS_DF_SD = 1.748, 0.022


def one_run(seed):
    sim = agglo.Simulation.from_file(agglo.examples.path("ballistic_paper_400"),
                                     seed=seed)
    assert sim.run() == "finished" and sim.cluster_count == 1
    r = float(sim.radii.mean())
    x = sim.positions
    nc = analysis.contacts_per_sphere(x, 2.1 * r)
    df = analysis.box_counting(x, eps_min=3 * r).dimension
    return nc, df, sim.time, sim.step_count, (x.copy(), sim.radii.copy(), sim.box)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 seeds")
    ap.add_argument("-o", "--out", default="out_python")
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    seeds = 5 if args.quick else args.seeds
    start = time.perf_counter()
    runs = [one_run(s) for s in range(1, seeds + 1)]
    nc = np.array([r[0] for r in runs])
    df = np.array([r[1] for r in runs])
    print(f"Degond et al., N = 400, V_f = 0.2, time stepping: {seeds} seeds, "
          f"{time.perf_counter() - start:.1f} s")
    print(f"{'seed':>4} {'N_c':>7} {'D_f':>7} {'t one cluster':>14} {'steps':>6}")
    for s, (c, d, t, k, _) in enumerate(runs, 1):
        print(f"{s:4d} {c:7.4f} {d:7.3f} {t:14.0f} {k:6d}")
    sd = nc.std(ddof=1) if seeds > 1 else 0.0
    print(f"N_c = {nc.mean():.3f} +- {sd:.3f} (docs/ballistic.md: time stepping {DOCS_TS} +- "
          f"{DOCS_TS_SD}, event driven {DOCS_ED}; the paper: ~{PAPER})")
    print(f"D_f = {df.mean():.3f} +- {df.std(ddof=1) if seeds > 1 else 0:.3f} "
          f"(docs/ballistic.md: {DOCS_DF} +- {DOCS_DF_SD})")

    os.makedirs(args.out, exist_ok=True)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.4), gridspec_kw={"width_ratios": [1.3, 1]})
    a.plot(np.arange(1, seeds + 1), nc, "C0o", label="agglo from Python (time stepping)")
    a.axhline(nc.mean(), color="C0", lw=1)
    a.axhspan(DOCS_TS - DOCS_TS_SD, DOCS_TS + DOCS_TS_SD, color="C1", alpha=0.3, lw=0,
              label=f"docs/ballistic.md TS {DOCS_TS} ± {DOCS_TS_SD}")
    a.axhline(DOCS_ED, color="C2", ls="--", label=f"event driven {DOCS_ED}")
    a.axhline(PAPER, color="k", ls=":", label=f"paper ≈ {PAPER}")
    a.set_xlabel("seed")
    a.set_ylabel(r"$N_c$ (distance $\leq 2.1r$)")
    a.set_title("Relative contacts per sphere, N = 400, $V_f$ = 0.2")
    a.legend(fontsize=8)
    x, r, box = runs[0][4]
    from matplotlib.collections import EllipseCollection
    b.add_collection(EllipseCollection(2 * r, 2 * r, np.zeros_like(r), units="x", offsets=x,
                                       offset_transform=b.transData, facecolors="C0",
                                       edgecolors="none"))
    b.add_patch(plt.Rectangle(box.lo, *box.length, fill=False, color="k", lw=0.8))
    b.set_xlim(box.lo[0], box.hi[0])
    b.set_ylim(box.lo[1], box.hi[1])
    b.set_aspect("equal")
    b.set_title(f"final cluster, seed 1 (t = {runs[0][2]:.0f})")
    b.set_xticks([])
    b.set_yticks([])
    fig.tight_layout()
    path = os.path.join(args.out, "degond_nc.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
