#!/usr/bin/python3
"""Maury (2004) Fig. 3 from Python: the number of clusters against time in Brownian aggregation
(examples/maury_brownian_2000.ini: N = 2000 discs, area fraction 0.16, 2 x 2 periodic box).

The cluster count is read every 0.1 time units by a callback; the curve is compared with the
ensemble of docs/validation.md (mean +- sd over seeds) and with Smoluchowski's constant-kernel
law n(t) = N / (1 + t/t_c), t_c = 0.229 (the fit of docs/validation.md).

    /usr/bin/python3 examples/python/maury_fig3.py [--quick] [-o out_python/] [--seeds 5]
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
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# docs/validation.md, N = 2000: t, clusters (mean, sd over seeds)
TABLE = np.array([[0, 1924, 7], [0.4, 724, 9], [0.6, 535, 6], [0.8, 422, 13], [1.0, 353, 15],
                  [1.2, 303, 14], [1.8, 213, 9], [3.0, 133, 6]])
T_C = 0.229


def one_run(seed, t_end):
    sim = agglo.Simulation.from_file(agglo.examples.path("maury_brownian_2000"),
                                     seed=seed, overrides={"run.t_end": t_end})
    times, counts = [sim.time], [sim.cluster_count]

    def record(s):
        times.append(s.time)
        counts.append(s.cluster_count)

    sim.run(callback=record, every=5)  # every 5 steps of h = 0.02
    return np.array(times), np.array(counts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one seed, t <= 1")
    ap.add_argument("-o", "--out", default="out_python")
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    seeds = 1 if args.quick else args.seeds
    t_end = 1.0 if args.quick else 3.0
    start = time.perf_counter()
    runs = [one_run(s, t_end) for s in range(1, seeds + 1)]
    t = runs[0][0]
    n = np.array([r[1] for r in runs], dtype=float)
    mean, sd = n.mean(axis=0), n.std(axis=0, ddof=1) if seeds > 1 else np.zeros(len(t))
    print(f"Maury Fig. 3 (N = 2000): {seeds} seed(s), t <= {t_end}, "
          f"{time.perf_counter() - start:.1f} s")
    print(f"{'t':>5} {'clusters (Python)':>20} {'docs/validation.md':>20} {'Smoluchowski':>13}")
    for tt, nv, sv in TABLE:
        if tt > t_end + 1e-9:
            continue
        k = int(np.argmin(abs(t - tt)))
        print(f"{tt:5.1f} {mean[k]:12.0f} +- {sd[k]:4.0f} {nv:12.0f} +- {sv:4.0f} "
              f"{2000 / (1 + tt / T_C):13.0f}")
    os.makedirs(args.out, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.plot(t, mean, "C0-", label=f"agglo from Python ({seeds} seed{'s' * (seeds > 1)})")
    if seeds > 1:
        ax.fill_between(t, mean - sd, mean + sd, color="C0", alpha=0.25, lw=0)
    sel = TABLE[:, 0] <= t_end + 1e-9
    ax.errorbar(TABLE[sel, 0], TABLE[sel, 1], TABLE[sel, 2], fmt="ko", ms=4, capsize=3,
                label="docs/validation.md (CLI, ensemble)")
    ts = np.linspace(0, t_end, 200)
    ax.plot(ts, 2000 / (1 + ts / T_C), "C3--", lw=1, label=r"$N/(1 + t/t_c)$, $t_c = 0.229$")
    ax.set_yscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel("number of clusters")
    ax.set_title("Brownian aggregation, N = 2000 (Maury 2004, Fig. 3)")
    ax.legend()
    fig.tight_layout()
    path = os.path.join(args.out, "maury_fig3_clusters.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
