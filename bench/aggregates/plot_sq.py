#!/usr/bin/python3
"""Log-log plots of `agglo analyze --sq`'s sq.csv files (docs/scattering.md's pictures).

  bench/aggregates/plot_sq.py OUT.png DIR1[:LABEL] [DIR2[:LABEL] ...] [--rg RG --a A --df D]

Each DIR holds an sq.csv (q,S,I,S_error) and the JSON of the same analysis in DIR/report.json
(`agglo analyze ... --sq --json > DIR/report.json`) when its Guinier and power-law fits are to be
drawn. Left: S(q) and I(q) with the power law of the fitted slope and the Guinier curve; right:
the local slope d ln S / d ln q against q R_g.
"""
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out, dirs = sys.argv[1], sys.argv[2:]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    for k, spec in enumerate(dirs):
        d, _, label = spec.partition(":")
        data = np.loadtxt(os.path.join(d, "sq.csv"), delimiter=",", skiprows=1)
        q, S, I = data[:, 0], data[:, 1], data[:, 2]
        colour = f"C{k}"
        ax.loglog(q, S, color=colour, label=f"S(q) {label}")
        if np.all(np.isfinite(I)) and not np.allclose(I, S):
            ax.loglog(q, I, color=colour, ls=":", label=f"I(q) {label} (spheres' form factor)")
        rep = os.path.join(d, "report.json")
        if os.path.exists(rep):
            r = json.load(open(rep))
            n, rg, sl = r["sq_monomers"], r["guinier_rg"], r["sq_slope"]
            qq = q[q <= 1.5 / rg]
            ax.loglog(qq, n * np.exp(-qq * qq * rg * rg / 3), color="k", lw=0.8, ls="--")
            lo, hi = r["sq_fit_q_min"], r["sq_fit_q_max"]
            m = (q >= lo) & (q <= hi)
            c = np.exp(np.mean(np.log(S[m]) - sl * np.log(q[m])))
            ax.loglog(q[m], c * q[m] ** sl, color="k", lw=1.5,
                      label=f"slope {sl:.3f} over {lo:.3g}..{hi:.3g}" if k == 0 else None)
            slope = np.gradient(np.log(S), np.log(q))
            bx.semilogx(q * r["direct_rg"], slope, color=colour, label=label)
            bx.axhline(sl, color=colour, ls="--", lw=0.8)
    ax.set_xlabel("q (1 / length unit)")
    ax.set_ylabel("S(q), I(q)")
    ax.legend(fontsize=7)
    ax.set_title("structure factor (Debye); dashed: Guinier N exp(-q²R_g²/3)", fontsize=9)
    bx.set_xlabel("q R_g")
    bx.set_ylabel("d ln S / d ln q")
    bx.set_ylim(-4, 1)
    bx.grid(True, lw=0.3)
    bx.legend(fontsize=7)
    bx.set_title("local slope; dashed: the fitted one", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main())
