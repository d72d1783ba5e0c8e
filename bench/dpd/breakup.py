#!/usr/bin/python3
"""breakup.py ENSEMBLE_DIR [OUT_DIR]: the shear break-up report of an `agglo ensemble ...
--vary dpd.shear_rate=...` of examples/dpd_breakup_*.ini (bench/dpd/breakup.sh; docs/dpd.md,
"Shear break-up").

Per member (DIR/dpd.shear_rate=R/seed=S/: stats.csv, sizes.csv), from the rows of stats.csv:
  - N = the particles (sum of size x clusters of the first row of sizes.csv);
  - the largest agglomerate against time (max_cluster_size);
  - the time to break-up [choice, docs/models.md]: the first row time at which the largest
    agglomerate holds fewer than N/2 particles (none: censored at t_end, printed as "> t_end");
  - the mean fragment size [choice]: the weight-average cluster size sum s^2 n_s / sum s n_s
    (the size of the fragment a random particle sits in), averaged over the rows of the last
    quarter of the run, and the number average N / n_clusters likewise;
  - the bridges broken: bound_pairs at t = 0 minus bound_pairs at the end (net: bridges that
    form are subtracted); and broken and formed: with capillary bridges with memory, the sums of
    stats.csv's bridges_broken and bridges_formed (dpd.bridge_counts: every bridge, counted by
    the model at each step; formed after the start's row), else, when the member wrote
    trajectory.xyz, the bonds (pairs within the agglomerate gap, 0.05 d, through the Lees-Edwards
    images) present in one frame and gone in the next, summed over the frames (broken), and the
    reverse (formed): a bond that breaks and re-forms between two frames is not seen;
  - the fragment-size distribution of the last row (sizes.csv).
Over seeds: mean and standard error (sd / sqrt(n)); the power law <s>_w = A rate^-m fitted by
least squares on log-log over the rates whose every seed broke up (time to break-up found), with
the standard error of m from the residuals. Prints markdown tables; with matplotlib writes
OUT_DIR/breakup_size.png, breakup_largest.png and breakup_time.png."""
import csv
import math
import os
import sys


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def member(path):
    rows = read_csv(os.path.join(path, "stats.csv"))
    sizes = read_csv(os.path.join(path, "sizes.csv"))
    if not rows or not sizes:
        raise SystemExit(f"{path}: empty stats.csv or sizes.csv")
    t0 = sizes[0]["time"]
    n = sum(int(r["size"]) * int(r["clusters"]) for r in sizes if r["time"] == t0)
    t = [float(r["time"]) for r in rows]
    largest = [int(r["max_cluster_size"]) for r in rows]
    nclus = [int(r["n_clusters"]) for r in rows]
    wavg = [float(r["weight_avg_cluster_size"]) if r.get("weight_avg_cluster_size") else math.nan
            for r in rows]
    # weight average from sizes.csv (the stats column is empty between analysis times)
    by_time = {}
    for r in sizes:
        by_time.setdefault(r["time"], []).append((int(r["size"]), int(r["clusters"])))
    tkeys = [r["time"] for r in rows]
    wavg = []
    for k in tkeys:
        d = by_time.get(k)
        if not d:
            wavg.append(math.nan)
            continue
        wavg.append(sum(s * s * c for s, c in d) / sum(s * c for s, c in d))
    tbreak = next((ti for ti, l in zip(t, largest) if 2 * l < n), None)
    q = [i for i in range(len(t)) if t[i] >= 0.75 * t[-1]]
    w = [wavg[i] for i in q if not math.isnan(wavg[i])]
    bound = [int(float(r["bound_pairs"])) for r in rows]
    last = by_time.get(tkeys[-1], [])
    rate = float(os.path.basename(os.path.dirname(os.path.abspath(path))).split("=")[1])
    if "bridges_broken" in rows[0]:  # the model's counts: every bridge (the start's row left out)
        bonds = (sum(int(r["bridges_broken"]) for r in rows), sum(int(r["bridges_formed"]) for r in rows[1:]))
    else:
        bonds = bond_changes(path, rate)
    return dict(n=n, t=t, largest=largest, tbreak=tbreak, bonds=bonds, counted="bridges_broken" in rows[0],
                size_w=sum(w) / len(w), size_n=sum(n / nclus[i] for i in q) / len(q),
                broken=bound[0] - bound[-1], bound0=bound[0], last=sorted(last), t_end=t[-1])


def bond_changes(path, rate, gap=0.05):
    """(broken, formed) bonds between consecutive frames of path/trajectory.xyz, or None."""
    import numpy as np
    fn = os.path.join(path, "trajectory.xyz")
    if not os.path.exists(fn):
        return None
    prev, broken, formed = None, 0, 0
    with open(fn) as f:
        while True:
            line = f.readline()
            if not line.strip():
                break
            n = int(line)
            head = f.readline()
            props = head.split("Properties=")[1].split()[0].split(":")
            col, cols = 0, {}
            for k in range(0, len(props), 3):
                cols[props[k]] = col
                col += int(props[k + 2])
            L = float(head.split('Lattice="')[1].split()[0])
            t = float(head.split("Time=")[1].split()[0])
            rows = np.array([f.readline().split()[1:] for _ in range(n)], dtype=float)
            x = rows[:, cols["pos"] - 1:cols["pos"] + 2]
            r = rows[:, cols["radius"] - 1]
            ids = rows[:, cols["id"] - 1].astype(int) if "id" in cols else np.arange(n)
            offset = math.fmod(rate * L * t, L)
            d = x[:, None, :] - x[None, :, :]
            ny = np.rint(d[:, :, 1] / L)
            d[:, :, 1] -= ny * L
            d[:, :, 0] -= ny * offset
            d[:, :, 0] -= L * np.rint(d[:, :, 0] / L)
            d[:, :, 2] -= L * np.rint(d[:, :, 2] / L)
            g = np.sqrt((d ** 2).sum(axis=2)) - r[:, None] - r[None, :]
            i, j = np.nonzero(np.triu(g < gap, 1))
            cur = set(zip(ids[i].tolist(), ids[j].tolist()))
            if prev is not None:
                broken += len(prev - cur)
                formed += len(cur - prev)
            prev = cur
    return broken, formed


def mean_se(x):
    m = sum(x) / len(x)
    if len(x) < 2:
        return m, math.nan
    sd = math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))
    return m, sd / math.sqrt(len(x))


def pm(ms, digits=3):
    """mean ± se as text (the se left out for one seed)."""
    m, se = ms
    if math.isnan(se):
        return f"{m:.{digits}g}"
    return f"{m:.{digits}g} ± " + ("0" if se <= 1e-9 * abs(m) else f"{se:.2g}")


def zero_nan(x):
    return [0 if math.isnan(v) else v for v in x]


def fit_power(rates, sizes):
    """log s = a - m log rate by least squares: (m, se of m, A)."""
    x = [math.log(r) for r in rates]
    y = [math.log(s) for s in sizes]
    k = len(x)
    xm, ym = sum(x) / k, sum(y) / k
    sxx = sum((v - xm) ** 2 for v in x)
    b = sum((xi - xm) * (yi - ym) for xi, yi in zip(x, y)) / sxx
    a = ym - b * xm
    res = sum((yi - a - b * xi) ** 2 for xi, yi in zip(x, y))
    se = math.sqrt(res / (k - 2) / sxx) if k > 2 else math.nan
    return -b, se, math.exp(a)


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    top = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) == 3 else top
    key = "dpd.shear_rate="
    rates = sorted((d for d in os.listdir(top) if d.startswith(key)), key=lambda d: float(d[len(key):]))
    if not rates:
        raise SystemExit(f"{top}: no {key}... member directories")
    table = []
    for d in rates:
        seeds = sorted(os.listdir(os.path.join(top, d)))
        ms = [member(os.path.join(top, d, s)) for s in seeds if s.startswith("seed=")]
        table.append((float(d[len(key):]), [s for s in seeds if s.startswith("seed=")], ms))
    n = table[0][2][0]["n"]
    print(f"N = {n} particles; t_end = {table[0][2][0]['t_end']:g}; seeds: {', '.join(s[5:] for s in table[0][1])}\n")
    counted = table[0][2][0]["counted"]
    what = "bridges broken / formed (stats.csv)" if counted else "bonds broken / formed between frames"
    print(f"| shear rate | seeds | <s>_w, weight average (last quarter) | <s>_n, number average | largest at t_end | time to break-up (largest < N/2) | broke up | bound pairs lost (net, of) | {what} |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    fit_r, fit_s = [], []
    for rate, seeds, ms in table:
        sw = mean_se([m["size_w"] for m in ms])
        sn = mean_se([m["size_n"] for m in ms])
        lg = mean_se([m["largest"][-1] for m in ms])
        tb = [m["tbreak"] for m in ms if m["tbreak"] is not None]
        br = mean_se([m["broken"] for m in ms])
        b0 = mean_se([m["bound0"] for m in ms])
        bd = [m["bonds"] for m in ms if m["bonds"] is not None]
        bf = (pm(mean_se([b[0] for b in bd])) + " / " + pm(mean_se([b[1] for b in bd]))) if bd else "—"
        tbs = "—"
        if tb:
            mt = mean_se(tb)
            tbs = pm(mt)
            if len(tb) < len(ms):
                tbs += f" ({len(ms) - len(tb)} > {ms[0]['t_end']:g})"
        print(f"| {rate:g} | {len(ms)} | {pm(sw)} | {pm(sn)} | {pm(lg)} | {tbs} | {len(tb)}/{len(ms)} | "
              f"{pm(br)} (of {b0[0]:.3g}) | {bf} |")
        if rate > 0 and len(tb) == len(ms):
            fit_r.append(rate), fit_s.append(sw[0])
    print()
    if len(fit_r) >= 2:
        m, se, a = fit_power(fit_r, fit_s)
        print(f"power law <s>_w = {a:.4g} rate^-m over the {len(fit_r)} rates that broke every seed "
              f"({fit_r[0]:g} to {fit_r[-1]:g}): m = {m:.3f} ± {se:.3f}")
    else:
        m = None
        print("power law: fewer than 2 rates broke every seed; no fit")
    tb_r = [r for r, _, ms in table if r > 0 and all(mm["tbreak"] is not None for mm in ms)]
    tb_m = [mean_se([mm["tbreak"] for mm in ms])[0] for r, _, ms in table
            if r > 0 and all(mm["tbreak"] is not None for mm in ms)]
    if len(tb_r) >= 2:
        mt, set_, at = fit_power(tb_r, tb_m)
        print(f"time to break-up = {at:.4g} rate^-p over the {len(tb_r)} rates that broke every seed: "
              f"p = {mt:.3f} ± {set_:.3f} (p = 1: break-up at a fixed strain)")
    print("\nfragment-size distribution at t_end (size: clusters, summed over seeds):")
    for rate, seeds, ms in table:
        tot = {}
        for mm in ms:
            for s, c in mm["last"]:
                tot[s] = tot.get(s, 0) + c
        print(f"  rate {rate:g}: " + ", ".join(f"{s}: {c}" for s, c in sorted(tot.items())))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(no matplotlib: no plots)")
        return
    os.makedirs(out, exist_ok=True)
    pos = [(r, ms) for r, _, ms in table if r > 0]
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.errorbar([r for r, _ in pos], [mean_se([m["size_w"] for m in ms])[0] for _, ms in pos],
                yerr=zero_nan([mean_se([m["size_w"] for m in ms])[1] for _, ms in pos]), fmt="o", capsize=3,
                label="weight average, mean ± se over seeds")
    if m is not None:
        xs = [fit_r[0], fit_r[-1]]
        ax.plot(xs, [a * x ** -m for x in xs], "-", label=f"fit: m = {m:.2f} ± {se:.2f}")
    ax.set_xscale("log"), ax.set_yscale("log")
    ax.set_xlabel("shear rate γ̇"), ax.set_ylabel("mean fragment size (particles)")
    ax.legend(fontsize=8)
    fig.tight_layout(), fig.savefig(os.path.join(out, "breakup_size.png"), dpi=90)
    fig, ax = plt.subplots(figsize=(5, 4))
    for r, _, ms in table:
        k = min(len(mm["t"]) for mm in ms)
        ax.plot(ms[0]["t"][:k], [sum(mm["largest"][i] for mm in ms) / len(ms) for i in range(k)],
                label=f"γ̇ = {r:g}")
    ax.axhline(n / 2, color="grey", lw=0.5)
    ax.set_xlabel("t"), ax.set_ylabel("largest agglomerate (mean over seeds)")
    ax.legend(fontsize=7)
    fig.tight_layout(), fig.savefig(os.path.join(out, "breakup_largest.png"), dpi=90)
    tb = [(r, [mm["tbreak"] for mm in ms]) for r, ms in pos]
    tb = [(r, v) for r, v in tb if all(x is not None for x in v)]
    if tb:
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.errorbar([r for r, _ in tb], [mean_se(v)[0] for _, v in tb],
                    yerr=zero_nan([mean_se(v)[1] for _, v in tb]), fmt="s", capsize=3)
        ax.set_xscale("log"), ax.set_yscale("log")
        ax.set_xlabel("shear rate γ̇"), ax.set_ylabel("time to break-up (largest < N/2)")
        fig.tight_layout(), fig.savefig(os.path.join(out, "breakup_time.png"), dpi=90)
    print(f"\nplots: {out}/breakup_size.png, breakup_largest.png, breakup_time.png")


main()
