#!/usr/bin/python3
"""check.py AGGLO EXAMPLE T_END RATE WHOLE BROKEN: the shear break-up example (docs/dpd.md,
"Shear break-up") run to T_END at dpd.shear_rate = 0 and at RATE. At rate 0 the largest
agglomerate must hold at least WHOLE of the N particles at every stats row (it stays whole); at
RATE its largest at T_END must hold fewer than BROKEN of them. Prints the numbers (bound_pairs
too: under shear capillary fragments collide and bridge, so their net count may rise), then PASS
or FAIL: what failed."""
import csv
import os
import subprocess
import sys


def run(agglo, example, t_end, rate, out):
    subprocess.run([agglo, "run", example, "-o", out, "--overwrite", "--quiet",
                    "-s", f"run.t_end={t_end}", "-s", f"dpd.shear_rate={rate}",
                    "-s", "output.trajectory_interval=0"], check=True)
    with open(os.path.join(out, "stats.csv")) as f:
        rows = list(csv.DictReader(f))
    return ([int(r["max_cluster_size"]) for r in rows], [int(float(r["bound_pairs"])) for r in rows],
            float(rows[-1]["time"]))


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    agglo, example, t_end, rate = argv[0], argv[1], float(argv[2]), float(argv[3])
    whole, broken = float(argv[4]), float(argv[5])
    name = os.path.splitext(os.path.basename(example))[0]
    l0, b0, t0 = run(agglo, example, t_end, 0, f"breakup_{name}_0")
    l1, b1, t1 = run(agglo, example, t_end, rate, f"breakup_{name}_{rate:g}")
    n = l0[0]
    print(f"{name}: N = {n}; rate 0: smallest largest agglomerate {min(l0)} (t <= {t0:g}), "
          f"bound pairs {b0[0]} -> {b0[-1]}; rate {rate:g}: largest {l1[-1]} at t = {t1:g}, "
          f"bound pairs {b1[0]} -> {b1[-1]} ({b1[0] - b1[-1]} broken, net)")
    if min(l0) < whole * n:
        print(f"FAIL: at rate 0 the largest agglomerate fell to {min(l0)} < {whole:g} N")
    elif not l1[-1] < broken * n:
        print(f"FAIL: at rate {rate:g} the largest agglomerate is {l1[-1]}, not < {broken:g} N")
    else:
        print("PASS")


main(sys.argv[1:])
