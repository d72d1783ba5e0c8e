#!/usr/bin/python3
"""RDG-FA's scattering of one aggregate by the three structure-factor choices (docs/scattering.md):
G = C_sca / (N^2 C_sca,monomer) against k R_g for the aggregate's own Debye S(q) and the
Fisher-Burford, exponential and Gaussian cut-off models of fractal dimension D_f, with the absorption
C_abs = N C_abs,monomer at every wavelength.

  PYTHONPATH=python bench/aggregates/rdg_structures.py AGGREGATE.xyz D_F OUT.png [m_re m_im]
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from agglo import analysis as an  # noqa: E402


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    path, df, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    m = complex(float(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else 1.6 + 0.6j
    frame = an.Trajectory(path)[-1]
    x, r = frame.positions, frame.radii
    rg = an.gyration(x).rg
    krg = np.geomspace(0.05, 30, 25)
    lam = 2 * np.pi * rg / krg
    rows = {s: [] for s in ("debye", "fisher_burford", "exponential", "gaussian")}
    for L in lam:
        for s in rows:
            o = an.rdg_fa(x, r, L, m, structure=s, df=df)
            rows[s].append(o.g)
            assert abs(o.c_abs / (o.n * o.c_abs_monomer) - 1) < 1e-12
    print("k R_g  " + "  ".join(rows))
    for k, v in enumerate(krg):
        print(f"{v:.4g}  " + "  ".join(f"{rows[s][k]:.5g}" for s in rows))
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for s in rows:
        ax.loglog(krg, rows[s], marker="o" if s == "debye" else None, ms=3,
                  label=s if s == "debye" else f"{s} (D_f {df:g})")
    ax.set_xlabel("k R_g")
    ax.set_ylabel("C_sca / (N² C_sca,monomer)")
    ax.set_title(f"RDG-FA, {len(r)} monomers, m = {m.real:g} + {m.imag:g}i", fontsize=9)
    ax.grid(True, lw=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main())
