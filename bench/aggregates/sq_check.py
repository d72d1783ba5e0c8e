#!/usr/bin/python3
"""The structure factor's fractal regime against an aggregate's prescribed D_f (issue 46,
docs/scattering.md): for each aggregate file (any trajectory `agglo analyze` reads: the last
frame's largest cluster, or every cluster with --all-clusters), `agglo analyze --sq --json`
gives Guinier's R_g, the direct R_g, the power-law slope over 5/R_g .. 1/a (or --fit QLO,QHI)
and D_f of the Gaussian cut-off fit (q <= 1/a, D_f and R_g free); this prints them per file,
their means over the files, and whether |R_g,Guinier / R_g - 1|, |-slope / D_f - 1| and
|D_f,Gaussian / D_f - 1| are within the tolerance (default 3 %).

  bench/aggregates/sq_check.py --df 1.8 AGG1.xyz AGG2.xyz ...   [--agglo build/agglo]
                               [--q-count 400] [--q-max Q] [--fit QLO,QHI] [--tolerance 0.03]

Exit status 0 when the R_g mean and one of the two D_f means are within the tolerance, 1
otherwise, 2 on a failed analysis.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def analyse(agglo, path, args, out):
    cmd = [agglo, "analyze", path, "--sq", "--json", "--overwrite", "-o", out,
           "--q-count", str(args.q_count)]
    if args.fit:
        cmd += ["--sq-fit", args.fit]
    if args.q_max:
        cmd += ["--q-max", str(args.q_max)]
    if args.all_clusters:
        cmd += ["--clusters", "all"]
    if args.radius:
        cmd += ["--radius", str(args.radius)]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.stderr.write(f"{' '.join(cmd)}: {run.stderr}")
        sys.exit(2)
    return json.loads(run.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="aggregate files (extended XYZ or H5MD)")
    p.add_argument("--df", type=float, required=True, help="the prescribed fractal dimension")
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--agglo", default=os.path.join(here, "..", "..", "build", "agglo"))
    p.add_argument("--q-count", type=int, default=400)
    p.add_argument("--q-max", type=float, help="the largest q (default agglo analyze's 10/a; 1/a "
                   "covers both fits and is 100 times cheaper for 10^4 monomers)")
    p.add_argument("--fit", help="the power law's q range QLO,QHI (default 5/R_g .. 1/a)")
    p.add_argument("--radius", type=float, help="monomer radius when the files have none")
    p.add_argument("--all-clusters", action="store_true", help="S(q) of every cluster, averaged")
    p.add_argument("--tolerance", type=float, default=0.03)
    args = p.parse_args()
    rg_dev, slopes, gauss = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        print("file  monomers  R_g(Guinier)  R_g(direct)  dev  slope  D_f(S)  q range  points  D_f(Gaussian)")
        for k, f in enumerate(args.files):
            r = analyse(args.agglo, f, args, os.path.join(tmp, str(k)))
            dev = r["guinier_rg"] / r["direct_rg"] - 1 if r["guinier_rg"] else float("nan")
            rg_dev.append(dev)
            slopes.append(-r["sq_slope"] if r["sq_slope"] is not None else float("nan"))
            g = r.get("sq_df_gaussian")
            gauss.append(g if g is not None else float("nan"))
            print(f"{f}  {r['sq_monomers']:.0f}  {r['guinier_rg']}  {r['direct_rg']:.6g}  "
                  f"{100 * dev:+.2f}%  {r['sq_slope']}  {slopes[-1]:.4f}  "
                  f"{r['sq_fit_q_min']:.4g}..{r['sq_fit_q_max']:.4g}  {r['sq_fit_points']:.0f}  {gauss[-1]:.4f}")
    n = len(args.files)
    mean_dev = sum(rg_dev) / n
    mean_df = sum(slopes) / n
    ok_rg = abs(mean_dev) <= args.tolerance
    ok_df = abs(mean_df / args.df - 1) <= args.tolerance
    mean_g = sum(gauss) / n
    ok_g = abs(mean_g / args.df - 1) <= args.tolerance
    print(f"mean over {n} file(s): Guinier R_g {100 * mean_dev:+.2f}% of the direct "
          f"({'within' if ok_rg else 'OUTSIDE'} {100 * args.tolerance:g}%), D_f from the slope "
          f"{mean_df:.4f} against {args.df} ({100 * (mean_df / args.df - 1):+.2f}%, "
          f"{'within' if ok_df else 'OUTSIDE'} {100 * args.tolerance:g}%), D_f of the Gaussian "
          f"cut-off fit {mean_g:.4f} ({100 * (mean_g / args.df - 1):+.2f}%, "
          f"{'within' if ok_g else 'OUTSIDE'} {100 * args.tolerance:g}%)")
    return 0 if ok_rg and (ok_df or ok_g) else 1


if __name__ == "__main__":
    sys.exit(main())
